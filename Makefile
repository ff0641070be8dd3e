# Quick start:  make example   (runs examples/blackscholes.l0 through l0-run)
#               make test      (lint, then all tests: unit, program corpus, lit)
# Both create the virtual environment .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: example test lit memcheck native-corpus bench clean

$(BIN)/l0-run: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[test]"
	touch $@

example: $(BIN)/l0-run
	$(BIN)/l0-run examples/blackscholes.l0 < examples/blackscholes.in

test: $(BIN)/l0-run
	$(BIN)/ruff check .
	$(BIN)/pytest -n 2

lit: $(BIN)/l0-run
	$(BIN)/lit -sv test/lit

# The corpus on the checking heap (poisoned fresh and freed buffers, double frees, leaks);
# also part of `make test`.
memcheck: $(BIN)/l0-run
	$(BIN)/pytest -n 2 test/test_corpus_memcheck.py

# Every runnable corpus program as an executable of `l0 compile`, compared with l0-run
# byte for byte (the default test run compiles a subset).
native-corpus: $(BIN)/l0-run
	L0_NATIVE_CORPUS=1 $(BIN)/pytest -n 2 test/test_compile_native.py

bench: $(BIN)/l0-run
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) build *.egg-info
