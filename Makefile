# Two entry points on a fresh machine: `make run` and `make test` (see README.md).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# MicroPython for WebAssembly (npm), which the firmware tests run the firmware modules under.
NPM_STAMP := firmware/wasm/node_modules/.installed-stamp
# axe-core (npm), which the browser tests inject into the pages (accessibility checks).
AXE_STAMP := tests/axe/node_modules/.installed-stamp

# The native core (C, kiothi_board/native): built in place, and checked that it loads.
NATIVE_STAMP := $(VENV)/.native-stamp
NATIVE_SRC := $(wildcard kiothi_board/native/*.c kiothi_board/native/*.h) setup.py

.PHONY: setup run test soak lint bench goldens clean install uninstall native native-sanitize

$(STAMP): pyproject.toml scripts/setup-system.sh
	bash scripts/setup-system.sh
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

$(NPM_STAMP): firmware/wasm/package.json firmware/wasm/package-lock.json $(STAMP)
	cd firmware/wasm && npm ci --no-audit --no-fund --loglevel=error
	touch $(NPM_STAMP)

$(AXE_STAMP): tests/axe/package.json tests/axe/package-lock.json $(STAMP)
	cd tests/axe && npm ci --no-audit --no-fund --loglevel=error
	touch $(AXE_STAMP)

$(NATIVE_STAMP): $(STAMP) $(NATIVE_SRC)
	$(PY) setup.py -q build_ext --inplace
	$(PY) -c 'import kiothi_board.native._core'
	touch $(NATIVE_STAMP)

native: $(NATIVE_STAMP)

setup: $(STAMP) $(NPM_STAMP) $(AXE_STAMP) $(NATIVE_STAMP)

run: setup
	$(VENV)/bin/kiothi-board run

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy --strict kiothi_board

# The suite on two workers a core (pytest-xdist; tests that start daemons and services use
# free ports and their own directories, so they run side by side; many tests wait on another
# process, a browser or a real timeout, and a second worker a core fills those waits).
# Soaks are left out: `make soak`. Then the rules and the AI again on their Python path
# (KIOTHI_CORE=python; by default they run on the native core, kiothi_board/native).
# The last line says how long it took, lint included (README.md states the figures).
WORKERS ?= $(shell echo $$(( $$(nproc) * 2 )))
# Bytecode is compiled once and kept (__pycache__, ignored by git), whatever
# PYTHONDONTWRITEBYTECODE says outside: the suite starts Python hundreds of times (the
# workers, every daemon, broker client and tool it runs), and without kept bytecode each
# start compiled the whole package again (0.3 CPU s a start) and each worker rewrote and
# compiled every test module.
test: export PYTHONDONTWRITEBYTECODE :=
test:
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory lint && \
	$(PY) -m compileall -q -j 0 kiothi_board tests scripts && \
	$(VENV)/bin/pytest -n $(WORKERS) --dist worksteal && \
	KIOTHI_CORE=python $(VENV)/bin/pytest -n $(WORKERS) --dist worksteal tests/rules tests/ai tests/test_players.py; \
	status=$$?; echo "make test: $$(( $$(date +%s) - start )) s"; exit $$status

# The long soaks: 200 SIGKILLs of the daemon at random points, the 1 M-position differential
# of the two cores of the rules, and the like (minutes).
soak: setup native-sanitize
	$(VENV)/bin/pytest --soak

# The native core under AddressSanitizer and UndefinedBehaviorSanitizer: a copy of the package
# and the tests in a scratch dir, the extension built there with -fsanitize=address,undefined,
# the native tests (the fuzz of every entry point with hostile values among them) run there
# with libasan preloaded into the (unsanitised) Python. Any report ends the run with an error.
SAN_DIR := build/sanitize
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g
NATIVE_TESTS := tests/rules/test_native_fuzz.py tests/rules/test_native_rules.py \
	tests/ai/test_native_search.py
native-sanitize: setup
	rm -rf $(SAN_DIR) && mkdir -p $(SAN_DIR)
	tar cf - --exclude=node_modules --exclude=__pycache__ --exclude='*.so' \
		kiothi_board tests setup.py pyproject.toml README.md | tar xf - -C $(SAN_DIR)
	cd $(SAN_DIR) && CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" \
		$(abspath $(PY)) setup.py -q build_ext --inplace
	nm -D $(SAN_DIR)/kiothi_board/native/_core*.so | grep -q __asan_init  # built sanitised
	cd $(SAN_DIR) && KIOTHI_CORE=native ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
		$(abspath $(VENV))/bin/pytest -p no:cacheprovider -p no:xdist $(NATIVE_TESTS)

bench: setup
	$(VENV)/bin/kiothi-board bench rules
	$(VENV)/bin/kiothi-board bench ai
	$(VENV)/bin/kiothi-board bench guide
	$(VENV)/bin/kiothi-board bench api

# Regenerate the golden playthroughs (review the diff before committing).
goldens: setup
	$(VENV)/bin/pytest tests/rules/test_goldens.py --update-goldens

# On a Raspberry Pi: `sudo make install` (the same as `sudo scripts/install.sh`, docs/install.md).
install:
	bash scripts/install.sh

uninstall:
	bash scripts/install.sh --uninstall

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache firmware/wasm/node_modules tests/axe/node_modules build
	rm -f kiothi_board/native/*.so
