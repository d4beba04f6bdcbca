"""acl_neon's 8-bit SOFTMAX (csrc/quant/qsoftmax.h) against the interpreter, bit-exact: int8 and
uint8 (and int16 output), several input scales and betas, row lengths with vector tails, at
every ISA level of the native module and with 1 and 2 threads; every model runs on acl_neon
alone (the op must be taken, nothing falls back)."""
from __future__ import annotations

import numpy as np
import pytest

import neon_harness
from builders.quant import softmax_model
from neon_harness import ISAS, check_threads
from onert_py import Session
from oracle import tflite_run
from quant_harness import assert_close_int, qrand

pytestmark = pytest.mark.skipif(not ISAS, reason="acl_neon's _quant module is not built")
isa = neon_harness.isa          # the fixture: each ISA level of the native modules

@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("si,beta", [(0.05, 1.0), (0.013, 0.37), (0.2, 2.5), (0.5, 1.7)])
def test_every_value_each_isa(isa, dtype, si, beta):
    """All 256 codes in a row (and reordered copies), so every table entry and max is used;
    many rows so that 2 threads split them."""
    info = np.iinfo(dtype)
    x = np.arange(info.min, info.max + 1).astype(dtype)
    rng = np.random.default_rng(int(si * 1000))
    rows = [x, x[::-1], np.roll(x, 77)] + [rng.permutation(x) for _ in range(61)]
    check_threads(softmax_model(dtype, (64, 256), (si, 3), beta=beta), [np.stack(rows)])


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("shape", [(7,), (3, 17), (2, 3, 5), (2, 2, 3, 33), (5, 1), (3, 8),
                                   (300, 31), (2, 1001)], ids=lambda s: "x".join(map(str, s)))
def test_row_lengths_each_isa(isa, dtype, shape):
    """Row lengths below, at and past the vector widths (tails), one-element rows."""
    x = qrand(np.random.default_rng(sum(shape)), shape, dtype)
    check_threads(softmax_model(dtype, shape, (0.1, 7), beta=1.3), [x])


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_narrow_inputs_each_isa(isa, dtype):
    """Inputs close together (probabilities near 1/depth: many halves to round)."""
    info = np.iinfo(dtype)
    x = qrand(np.random.default_rng(3), (40, 37), dtype, info.max - 3, info.max)
    check_threads(softmax_model(dtype, x.shape, (0.01, 0), beta=1.0), [x])


@pytest.mark.parametrize("qout", [(0.02, 128), (1 / 256, 10), (0.0007, 255)])
def test_uint8_free_output_each_isa(isa, qout):
    """uint8 output parameters other than 1/256, 0 (the interpreter adds no zero point)."""
    x = qrand(np.random.default_rng(5), (9, 19), "uint8")
    check_threads(softmax_model("uint8", x.shape, (0.07, 120), qout), [x])


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("qout", [(1 / 32768, 0), (1 / 65536, -32768), (0.0003, 17)])
def test_int16_output_each_isa(isa, dtype, qout):
    x = qrand(np.random.default_rng(11), (6, 21), dtype)
    check_threads(softmax_model(dtype, x.shape, (0.05, 2), qout, out_dtype="int16"), [x])


def test_runs_on_acl_neon():
    """The op is acl_neon's own kernel (not a fallback): acl_neon alone compiles it."""
    x = qrand(np.random.default_rng(1), (2, 9), "int8")
    model = softmax_model("int8", x.shape, (0.05, 0))
    got = Session(model, backends="acl_neon").run([x])[0]
    assert_close_int(np.asarray(got), tflite_run(model, [x])[0], 0, "int8 softmax")
