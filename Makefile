# Quick start:  make example   (runs examples/blackscholes.l0 through l0-run)
#               make test      (lint, then the type check beside all tests: unit, program corpus, lit)
# Both create the virtual environment .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: example test lit memcheck mutants fuzz native-corpus bench clean

$(BIN)/l0-run: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[test,lsp,dask,ptx]"
	touch $@

example: $(BIN)/l0-run
	$(BIN)/l0-run examples/blackscholes.l0 < examples/blackscholes.in

# mypy reads its configuration from pyproject.toml ([tool.mypy]) and keeps its incremental
# cache in .mypy_cache, so a run after a small change takes seconds. It runs beside the
# tests (both only read the tree; from a cold cache it takes one core for about as long
# as the tests take half a core), and its report is printed after theirs; either
# failing fails the target.
# One xdist group per corpus program: its front end and pipeline run once (test/test_matrix.py).
# Bytecode is written even where the environment says not to (PYTHONDONTWRITEBYTECODE):
# without it each worker rewrites and compiles every test module again (half of the
# collection's time), and every l0-run the tests start compiles l0 again.
test: $(BIN)/l0-run
	$(BIN)/ruff check .
	$(BIN)/mypy > $(VENV)/mypy.log 2>&1 & mypy=$$!; \
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n 2 --dist loadgroup; tests=$$?; \
	wait $$mypy; types=$$?; echo "mypy:"; cat $(VENV)/mypy.log; \
	[ $$types -eq 0 ] && [ $$tests -eq 0 ]

lit: $(BIN)/l0-run
	$(BIN)/lit -sv test/lit

# The matrix's CPU column: the corpus on the checking heap (poisoned fresh and freed
# buffers, double frees, leaks), with and without -O; also part of `make test`.
memcheck: $(BIN)/l0-run
	$(BIN)/pytest -n 2 --dist loadgroup test/test_matrix.py -k cpu

# Mutation testing of one module with the fast tests that cover it (docs/testing.md), e.g.
# `make mutants MODULE=passes/fuse`; lists the surviving mutants. One mutant at a time.
MODULE ?= passes/fuse
mutants: $(BIN)/l0-run
	$(BIN)/python test/mutants.py $(MODULE) $(ARGS)

# The differential fuzzer at scale (docs/testing.md): N random functions on every back end
# against the interpreter, e.g. `make fuzz N=2000 ARGS="--seed 1000"`; reproductions of
# what it finds go to build/fuzz/.
N ?= 2000
fuzz: $(BIN)/l0-run
	$(BIN)/python test/fuzzing/fuzz.py -n $(N) --out build/fuzz $(ARGS)

# Every runnable corpus program as an executable of `l0 compile`, compared with l0-run
# byte for byte (the default test run compiles a subset).
native-corpus: $(BIN)/l0-run
	L0_NATIVE_CORPUS=1 $(BIN)/pytest -n 2 test/test_compile_native.py

bench: $(BIN)/l0-run
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) build *.egg-info
