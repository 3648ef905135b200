// Runs the kiothi-io firmware modules (../kiothi_io: frames.py, device.py, config.py) under
// real MicroPython 1.27 (the WebAssembly port, npm @micropython/micropython-webassembly-pyscript)
// in Node, for the test suite. main.py is not run: it needs `machine` and an RP2040.
//
//   node device.mjs            the device: frames in on stdin, frames out on stdout (binary);
//                              `levels N` lines on the fd named by $KIOTHI_CONTROL_FD set the
//                              input levels (bit i = slot i);
//                              stderr carries `ready`, `maintenance` (the firmware would now
//                              restart into its update mode) and MicroPython's own output
//   node device.mjs --run F    run the MicroPython script F with the firmware on sys.path;
//                              its print() goes to stdout
//
// Install: `npm ci` in this directory (the Makefile's setup target does it).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript/micropython.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const firmware = process.env.KIOTHI_FIRMWARE || path.join(here, "..", "kiothi_io");
const run = process.argv[2] === "--run" ? process.argv[3] : null;

const out = run ? (line) => process.stdout.write(line + "\n") : (line) => process.stderr.write(line + "\n");
const mp = await loadMicroPython({ stdout: out, stderr: (l) => process.stderr.write(l + "\n"), linebuffer: true });
mp.FS.mkdir("/fw");
for (const name of ["frames.py", "device.py", "config.py"]) {
  mp.FS.writeFile(`/fw/${name}`, fs.readFileSync(path.join(firmware, name), "utf8"));
}
mp.runPython("import sys\nsys.path.insert(0, '/fw')\n");

function python(code) {
  try {
    return mp.runPython(code);
  } catch (error) {
    process.stderr.write(`micropython: ${error.message}\n`);
    process.exit(3);
  }
}

if (run) {
  python(fs.readFileSync(run, "utf8"));
  process.exit(0);
}

mp.registerJsModule("host", {
  write: (hex) => process.stdout.write(Buffer.from(hex, "hex")),
  maintenance: () => process.stderr.write("maintenance\n"),
});
python(fs.readFileSync(path.join(here, "device_glue.py"), "utf8"));
const feed = mp.globals.get("feed");
const tick = mp.globals.get("tick");
const setLevels = mp.globals.get("set_levels");

process.stdin.on("data", (chunk) => feed(chunk.toString("hex")));
process.stdin.on("end", () => process.exit(0));
if (process.env.KIOTHI_CONTROL_FD) {
  let pending = "";
  const fd = Number(process.env.KIOTHI_CONTROL_FD);
  fs.createReadStream(null, { fd }).on("data", (chunk) => {
    pending += chunk.toString("utf8");
    let nl;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const [cmd, value] = pending.slice(0, nl).trim().split(/\s+/);
      pending = pending.slice(nl + 1);
      if (cmd === "levels") setLevels(Number(value));
    }
  });
}
setInterval(() => tick(), 2); // the firmware's scan loop (SCAN_MS)
process.stderr.write("ready\n");
