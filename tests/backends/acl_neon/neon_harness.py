"""Helpers shared by the acl_neon quantized kernel tests (test_acl_neon_quant*.py beside it; no
tests here): the ISA levels to run at, the `isa` fixture and the bit-exact comparison with the
interpreter at 1 and 2 threads."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py import Session
from onert_py.backends.acl_neon import native
from oracle import tflite_run
from quant_harness import assert_close_int


def neon_isas(*groups: str) -> list[str]:
    """The ISA levels of the native modules, [] unless every group in `groups` is built."""
    try:
        return native.available_isas() if all(native.available(g)[0] for g in groups) else []
    except native.NativeUnavailable:
        return []


ISAS = neon_isas("quant")


def isa_fixture(*groups: str):
    """A fixture running the test with the native kernels capped at each ISA level of the
    modules of `groups` (restored afterwards); the quantized tests' `isa` is this for "quant"."""
    @pytest.fixture(params=neon_isas(*groups) or ["none"])
    def isa(request):
        before = native.active_isa()
        native.set_isa(request.param)
        yield request.param
        native.set_isa(before)
    return isa


isa = isa_fixture("quant")


def check_threads(model: bytes, inputs, threads=(1, 2), backends="acl_neon") -> None:
    """`model` on `backends` (acl_neon alone by default: every op must be taken) equals the
    interpreter exactly with each thread count."""
    expected = tflite_run(model, list(inputs))
    for t in threads:
        got = Session(model, backends=backends, config={"num_threads": t}).run(list(inputs))
        for k, (g, e) in enumerate(zip(got, expected)):
            assert_close_int(np.asarray(g), e, 0, f"output {k}, {t} threads")
