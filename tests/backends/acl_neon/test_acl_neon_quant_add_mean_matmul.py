"""acl_neon's direct 8-bit ADD/SUB (same shapes: csrc/quant/qadd.h), MEAN (qmean.h) and int8
BATCH_MATMUL (exact float32 GEMM, native requantization: ops/batch_matmul.py) against
the interpreter, bit-exact, at every ISA level of the native module and with 1 and 2 threads;
every model runs on acl_neon alone (the op must be taken)."""
from __future__ import annotations

import numpy as np
import pytest

import neon_harness
from builders.qadd import QPARAMS
from builders.qadd import qp as add_qp
from builders.qmatmul import A_SCALE, B_SCALE, SHAPES, bmm_model, case, out_shape
from builders.qpool import RATIOS, reduce_model
from builders.quant import all_pairs, quantized_binary
from neon_harness import ISAS, check_threads
from op_harness import kernels
from onert_py import Session
from onert_py.core.loader.flatbuffer_loader import load_flatbuffer
from quant_harness import qrand

pytestmark = pytest.mark.skipif(not ISAS, reason="acl_neon's _quant module is not built")
isa = neon_harness.isa          # the fixture: each ISA level of the native modules


@pytest.mark.parametrize("op,dtype", [("ADD", "int8"), ("ADD", "uint8"), ("SUB", "int8"),
                                      ("SUB", "uint8")])
@pytest.mark.parametrize("params", list(QPARAMS)[:4])
def test_addsub_all_pairs_each_isa(isa, op, dtype, params):
    """Every pair of input values; 65536 - 13 elements: vector lanes plus a scalar tail."""
    a, b = all_pairs(dtype)
    n = a.size - 13
    act = "RELU6" if params == "third" else "NONE"
    model = quantized_binary(op, (n,), (n,), dtype, *add_qp(dtype, params),
                             fused_activation_function=act)
    check_threads(model, [a[:n], b[:n]])


@pytest.mark.parametrize("shape", [(1, 7, 9, 24), (3, 5), (15,), (2, 1, 1, 17),
                                   (1, 14, 14, 64), (1, 7, 7, 161)],   # split at 2 threads
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_add_shapes_each_isa(isa, shape, dtype):
    rng = np.random.default_rng([len(shape), *shape])
    model = quantized_binary("ADD", shape, shape, dtype, *add_qp(dtype, "wide"),
                             fused_activation_function="RELU")
    check_threads(model, [qrand(rng, shape, dtype), qrand(rng, shape, dtype)])


MEAN_CASES = {
    "hw_keep": ((2, 5, 7, 21), [1, 2], True),
    "hw_keep_rev": ((1, 4, 4, 32), [2, 1], True),
    "hw_nokeep": ((2, 5, 7, 21), [1, 2], False),
    "hw_negative": ((1, 3, 6, 17), [-3, -2], True),
    "hw_wide": ((1, 7, 7, 300), [1, 2], True),
    "hw_wide_nokeep": ((1, 7, 7, 300), [1, 2], False),
    "last": ((3, 4, 37), [2], False),
    "first_keep": ((6, 4, 5), [0], True),
    "all": ((2, 3, 4, 5), [0, 1, 2, 3], False),
}


@pytest.mark.parametrize("ratio", list(RATIOS))
@pytest.mark.parametrize("case", list(MEAN_CASES))
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_mean_each_isa(isa, dtype, case, ratio):
    shape, model = reduce_model("MEAN", MEAN_CASES[case], dtype, RATIOS[ratio], ozp_shift=5)
    rng = np.random.default_rng(sum(map(ord, case + ratio)))
    check_threads(model, [qrand(rng, shape, dtype)])


def test_mean_refuses_non_contiguous_axes():
    from onert_py.backends.acl_neon.ops.quant_reduce import QMeanLayer
    shape, model = reduce_model("MEAN", ((2, 9, 3, 4), [1, 3], True), "int8", 0.37)
    graph = load_flatbuffer(model, "mean").primary
    op = next(iter(graph.operations.values()))
    ok, why = QMeanLayer.supports(op, graph)
    assert not ok and "contiguous" in why
    check_threads(model, [qrand(np.random.default_rng(3), shape, "int8")],
                  backends="acl_neon;cpu")


def _bmm(name, mult, b_const, zps, seed=0):
    rng = np.random.default_rng(seed + len(name))
    a, b, adj_x, adj_y = case(rng, "int8", "int8", name, zps, small=(-120, 120))
    ys = float(np.float32(A_SCALE) * np.float32(B_SCALE) / np.float32(mult))
    model = bmm_model(a.shape, "int8", zps[0], b, zps[1], b_const,
                      out_shape(a.shape, b.shape, adj_x, adj_y), "int8", ys, zps[2],
                      adj_x=adj_x, adj_y=adj_y)
    return model, [a] if b_const else [a, b]


# 2^-6: exact ties; 2.0: a left-shifting multiplier (the cpu kernel's own code path)
MULTS = [2.0 ** -6, 0.37 / 40, 2.0]


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("mult", MULTS)
@pytest.mark.parametrize("b_const", [False, True])
@pytest.mark.parametrize("zps", [(0, 0, 0), (3, -2, 5)])
def test_batch_matmul_int8(name, mult, b_const, zps):
    check_threads(*_bmm(name, mult, b_const, zps))


@pytest.mark.parametrize("mult", MULTS[:2])
def test_batch_matmul_int8_each_isa(isa, mult):
    """The native requantization at every ISA level (the kernel takes its native path)."""
    model, inputs = _bmm("bcast4d", mult, False, (3, -2, 5), seed=3)
    check_threads(model, inputs)
    sess = Session(model, backends="acl_neon")
    assert any(k.backend_id == "acl_neon" and type(k).__name__ == "QBatchMatMulLayer"
               and k.native is not None for k in kernels(sess))
