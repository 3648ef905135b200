"""The wiring diagram of a pin map as SVG: the board's header with every pin labelled.

Deterministic text (no dates, fixed number formatting), so a test can compare the file in
hardware/ with what the map gives today.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from kiothi_board.hardware.pinmap import PinMap

__all__ = ["wiring_svg"]

ROW = 26
TOP = 90
LEFT_X, RIGHT_X = 430, 470
COLOURS = {
    "S": "#1f77b4",
    "N": "#e8710a",
    "control": "#2ca02c",
    "led": "#d62728",
    "reserved": "#8c8c8c",
    "5V": "#b00020",
    "3V3": "#c99700",
    "GND": "#202020",
    "other": "#8c8c8c",
    "free": "#d9d9d9",
}
LED_DATA = {"spi": 10, "pwm": 18}


def _positions(board: str) -> dict[int, tuple[int, int]]:
    """Physical pin → (column 0/1, row 0…19)."""
    if board == "pico":  # pins 1…20 down the left edge, 21…40 up the right edge
        return {n: (0, n - 1) if n <= 20 else (1, 40 - n) for n in range(1, 41)}
    return {n: ((n - 1) % 2, (n - 1) // 2) for n in range(1, 41)}  # odd left, even right


def _pin_labels(pin_map: PinMap) -> dict[int, tuple[str, str]]:
    """Physical pin → (label, colour key)."""
    board = pin_map.header
    prefix = board.gpio_prefix
    labels: dict[int, tuple[str, str]] = {}
    for phys, name in board.power.items():
        labels[phys] = (name, name if name in COLOURS else "other")
    reserved = pin_map.reserved()
    for gpio, phys in board.header.items():
        if gpio in reserved:
            kind = "led" if LED_DATA.get(pin_map.leds) == gpio else "reserved"
            labels[phys] = (f"{prefix}{gpio} {reserved[gpio]}", kind)
        elif gpio in board.reserved.get("pwm", {}):
            labels[phys] = (f"{prefix}{gpio} free (PWM LED option)", "free")
        else:
            labels[phys] = (f"{prefix}{gpio} free", "free")
    for key, gpio in pin_map.assignments():
        if gpio not in board.header:
            continue
        phys = board.header[gpio]
        name = key.split(".", 1)[1]
        kind = "control" if key.startswith("controls") else name[0]
        label = f"control {name}" if kind == "control" else name
        labels[phys] = (f"{label} · {prefix}{gpio}", kind)
    return labels


def _legend(y: int) -> list[str]:
    items = [
        ("S", "South pits S1…S10"),
        ("N", "North pits N1…N10"),
        ("control", "control buttons"),
        ("led", "LED data"),
        ("reserved", "kept free (bus)"),
        ("free", "unused"),
    ]
    out = []
    for i, (kind, text) in enumerate(items):
        x, row_y = 150 + (i % 3) * 220, y + (i // 3) * 22
        out.append(f'<rect x="{x}" y="{row_y}" width="14" height="14" fill="{COLOURS[kind]}"/>')
        out.append(f'<text x="{x + 20}" y="{row_y + 12}">{escape(text)}</text>')
    return out


def _notes(pin_map: PinMap) -> list[str]:
    prefix = pin_map.header.gpio_prefix
    notes = ["Each button: between its pin and GND (internal pull-up, pressed = low)."]
    if pin_map.leds in LED_DATA:
        gpio = LED_DATA[pin_map.leds]
        phys = pin_map.header.header[gpio]
        notes.append(
            f"LED chain: {prefix}{gpio} (pin {phys}) → 74AHCT125 (5 V) → 330 Ω → DIN of the "
            "first ring; LED supply GND joined to the Pi's GND."
        )
    else:
        notes.append("LED chain: driven by the Pi's SPI0 MOSI (GPIO10, pin 19), see direct map.")
    if pin_map.board == "pico":
        notes.append("The Pico talks to the Pi over USB (/dev/kiothi-io).")
    return notes


def wiring_svg(pin_map: PinMap) -> str:
    """The diagram as an SVG document."""
    positions = _positions(pin_map.board)
    labels = _pin_labels(pin_map)
    height = TOP + 20 * ROW + 150
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="900" height="{height}" '
        f'viewBox="0 0 900 {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="13">',
        f'<rect width="900" height="{height}" fill="#ffffff"/>',
        f'<text x="450" y="30" font-size="18" text-anchor="middle">{escape(pin_map.title)}</text>',
        f'<text x="450" y="52" text-anchor="middle" fill="#555">{escape(pin_map.header.label)}'
        f" — map “{escape(pin_map.name)}”, models {escape(', '.join(pin_map.models))}</text>",
        f'<rect x="405" y="{TOP - 18}" width="90" height="{20 * ROW + 10}" rx="6" '
        'fill="#f4f4f4" stroke="#999"/>',
    ]
    for phys in range(1, 41):
        col, row = positions[phys]
        x = LEFT_X if col == 0 else RIGHT_X
        y = TOP + row * ROW
        text, kind = labels.get(phys, ("", "free"))
        colour = COLOURS[kind]
        parts.append(f'<circle cx="{x}" cy="{y}" r="10" fill="{colour}" stroke="#333"/>')
        fg = "#000" if kind in ("free", "3V3") else "#fff"
        parts.append(
            f'<text x="{x}" y="{y + 4}" font-size="10" text-anchor="middle" fill="{fg}">'
            f"{phys}</text>"
        )
        anchor, tx = ("end", x - 18) if col == 0 else ("start", x + 18)
        ink = "#999" if kind == "free" else colour
        parts.append(
            f'<text x="{tx}" y="{y + 4}" text-anchor="{anchor}" fill="{ink}">{escape(text)}</text>'
        )
    y = TOP + 20 * ROW + 10
    parts += _legend(y)
    for i, note in enumerate(_notes(pin_map)):
        parts.append(f'<text x="40" y="{y + 70 + i * 20}">{escape(note)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
