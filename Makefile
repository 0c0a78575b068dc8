# Two commands on a fresh machine: `make demo` and `make test`. Both create the venv they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0  # the CPU build; an unpinned torch pulls a multi-GB CUDA build
	$(BIN)/pip install -q -e ".[rl,dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/cardboard tournament lords_of_war --agents random greedy ismcts:iterations=1000 --games 10 --seed 1 --workers 2

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/pip install -q -e ".[bench]"
	$(BIN)/python benchmarks/playout.py
	$(BIN)/python benchmarks/search.py
	$(BIN)/python benchmarks/hearth.py

clean:
	rm -rf $(VENV) build dist *.egg-info
