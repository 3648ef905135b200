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

.PHONY: setup run test soak lint bench goldens clean install uninstall native

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
test:
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory lint && \
	$(VENV)/bin/pytest -n $(WORKERS) --dist worksteal && \
	KIOTHI_CORE=python $(VENV)/bin/pytest -n $(WORKERS) --dist worksteal tests/rules tests/ai tests/test_players.py; \
	status=$$?; echo "make test: $$(( $$(date +%s) - start )) s"; exit $$status

# The long soaks: 200 SIGKILLs of the daemon at random points, the 1 M-position differential
# of the two cores of the rules, and the like (minutes).
soak: setup
	$(VENV)/bin/pytest --soak

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
