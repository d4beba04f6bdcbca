"""acl_neon's 8-bit CONCATENATION against the interpreter, bit-exact: uint8 inputs whose scales
or zero points differ from the output's (requantized: ops/quant_concat.py) and inputs that all
carry the output's parameters (copied), several axes and odd sizes, at every ISA level of the
native modules and with 1 and 2 threads; every model runs on acl_neon alone."""
from __future__ import annotations

import numpy as np
import pytest

import neon_harness
from builders.qmove import concat_model
from neon_harness import check_threads, neon_isas
from quant_harness import qrand

pytestmark = pytest.mark.skipif(not neon_isas("quant", "movement"),
                                reason="acl_neon's native modules are not built")
isa = neon_harness.isa          # the fixture: each ISA level of the native modules


CASES = {
    "axis-1": ([(2, 3, 5, 7), (2, 3, 5, 9), (2, 3, 5, 1)], 3),
    "axis0": ([(3, 17), (1, 17), (5, 17)], 0),
    "axis1": ([(2, 4, 33), (2, 1, 33)], 1),
    "flat": ([(255,), (260,)], 0),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("qset", ["scales", "zero_points", "mixed"])
def test_uint8_requantized_each_isa(isa, case, qset):
    shapes, axis = CASES[case]
    qout = (0.05, 128)
    pick = {"scales": [(0.1, 128), (0.0173, 128), (0.05, 128)],
            "zero_points": [(0.05, 0), (0.05, 255), (0.05, 128)],
            "mixed": [(0.05, 128), (0.2, 3), (0.0125, 250)]}[qset]
    qins = [pick[k % 3] for k in range(len(shapes))]
    rng = np.random.default_rng(len(case) + len(qset))
    xs = [qrand(rng, s, "uint8") for s in shapes]
    check_threads(concat_model(shapes, axis, "uint8", qins, qout), xs)


def test_uint8_every_code_ties_each_isa(isa):
    """Every code through scales that put values on halves (round half away from zero)."""
    x = np.arange(256).astype(np.uint8).reshape(16, 16)
    model = concat_model([(16, 16), (16, 16)], 1, "uint8", [(0.5, 7), (0.25, 200)], (1.0, 100))
    check_threads(model, [x, x[::-1].copy()])


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_same_parameters_copied_each_isa(isa, dtype):
    shapes = [(2, 5, 3), (2, 5, 8)]
    rng = np.random.default_rng(4)
    xs = [qrand(rng, s, dtype) for s in shapes]
    q = (0.03, -5 if dtype == "int8" else 120)
    check_threads(concat_model(shapes, 2, dtype, [q, q], q), xs)
