# Two commands on a fresh machine: `make demo` and `make test`. Both create the venv they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench docs clean fresh-kernels chromium

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0  # the CPU build; an unpinned torch pulls a multi-GB CUDA build
	$(BIN)/pip install -q -e ".[rl,dev,ray,web]"
	touch $(STAMP)

# numba validates a cached kernel by its own file's time only, but kernels bake in constants from sibling
# modules (layout.py) and inline the shared envs/kernels.py: drop every cache older than the newest of those
fresh-kernels:
	@for d in envs/*/ search policies; do newest=$$(ls -t $$d*.py $$d/*.py envs/kernels.py 2>/dev/null | head -1); \
	  [ -d $$d/__pycache__ ] && find $$d/__pycache__ -name '*.nb[ic]' ! -newer $$newest -delete; true; done

demo: $(STAMP) fresh-kernels
	rm -rf runs/demo  # a fresh demo each time (a results file of another version is not resumed)
	$(BIN)/cardboard tournament lords_of_war --agents random greedy ismcts:iterations=1000 --games 10 --seed 1 --workers 2 --out runs/demo

# the browser tests drive Debian's chromium (Playwright never downloads one): installed here when missing
chromium:
	@[ -x /usr/bin/chromium ] || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } || \
	  { echo "make test: the browser tests need /usr/bin/chromium; install it as root: apt-get install -y chromium" >&2; \
	    exit 1; }

test: $(STAMP) fresh-kernels chromium  # one pytest worker per core (pytest-xdist), a file's tests in one worker
	$(BIN)/python -m pytest -n auto --dist loadfile  # cold: 705 s, against 802 s handing out tests one by one

docs: $(STAMP)  # the site from mkdocs.yml and docs/ into site/ (--strict: a broken link or reference fails)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

bench: $(STAMP) fresh-kernels
	$(BIN)/pip install -q -e ".[bench]"
	$(BIN)/python benchmarks/playout.py
	$(BIN)/python benchmarks/search.py
	$(BIN)/python benchmarks/hearth.py
	$(BIN)/python benchmarks/pandemic.py
	$(BIN)/python benchmarks/fifth_aeon.py
	[ -x .venv-pgx/bin/python ] || { $(PYTHON) -m venv .venv-pgx && .venv-pgx/bin/pip install -q pgx jax; }  # pgx's own venv: it installs a top-level tests package
	$(BIN)/python benchmarks/vector.py
	$(BIN)/python benchmarks/ppo_steps.py

clean:
	rm -rf $(VENV) .venv-pgx build dist *.egg-info
