# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test bench venv wheel-test example ops-table clean native native-test native-test-aarch64

venv: $(STAMP)

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip "setuptools>=77" wheel "pybind11>=2.12"
	$(PY) -m pip install -q -e ".[test,bench,cl,ray]"
	# acl_cl needs an OpenCL device that builds kernels; where pip's PoCL cannot (a CPU its
	# LLVM does not know), Debian's pocl-opencl-icd is installed (apt, as root)
	$(PY) tools/opencl_check.py --ensure || true
	touch $(STAMP)

demo: $(STAMP) native
	$(PY) -m onert_py.examples.demo

test: $(STAMP) native
	$(VENV)/bin/pytest

bench: $(STAMP)
	$(PY) bench/bench.py

example: $(STAMP)
	$(PY) tools/make_example_model.py

ops-table: $(STAMP)
	$(PY) tools/op_table.py

# acl_neon's native kernels: rebuilt in place when backends/acl_neon/csrc changed since the
# install (a no-op otherwise; without a compiler the backend reports itself unavailable)
native: $(STAMP)
	$(PY) setup.py -q build_ext --inplace

# the C++ kernel tests, on this machine and cross-compiled for aarch64 under qemu-user
native-test: $(STAMP)
	$(PY) tools/native_tests.py

native-test-aarch64: $(STAMP)
	$(PY) tools/native_tests.py --aarch64 --install

clean:
	rm -rf $(VENV) build dist *.egg-info
