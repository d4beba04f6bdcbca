# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test bench venv wheel-test example ops-table clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip "setuptools>=77" wheel
	$(PY) -m pip install -q -e ".[test,bench]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m onert_py.examples.demo

test: $(STAMP)
	$(VENV)/bin/pytest

bench: $(STAMP)
	$(PY) bench/bench.py

example: $(STAMP)
	$(PY) tools/make_example_model.py

ops-table: $(STAMP)
	$(PY) tools/op_table.py

clean:
	rm -rf $(VENV) build dist *.egg-info
