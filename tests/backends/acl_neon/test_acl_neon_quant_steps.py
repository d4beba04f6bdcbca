"""acl_neon's quantized kernels bound once (module _quant's plans on the tensors' native slots,
core/exec/native.py): each kernel binds its native step after prepare (the quantized
BatchMatMul binds its requantization and keeps a Python run for the GEMM) and gives the
interpreter's results through it; the step follows a tensor whose buffer is replaced; a step
whose buffer is missing, too small or read-only fails with a RuntimeError naming the operand,
never reading or writing out of bounds."""
from __future__ import annotations

import numpy as np
import pytest

from builders.qadd import qp as add_qp
from builders.qconv import CONV, qconv_model
from builders.qmatmul import A_SCALE, B_SCALE, bmm_model, case, out_shape
from builders.qmove import concat_model
from builders.qpool import pool_model, reduce_model
from builders.quant import quantized_binary, quantized_unary, softmax_model
from neon_harness import ISAS
from op_harness import kernels
from onert_py import Session
from onert_py.backends.acl_neon import native
from onert_py.core.exec.native import _native, run_step
from oracle import tflite_run
from quant_harness import assert_close_int, qrand

pytestmark = pytest.mark.skipif(not ISAS, reason="acl_neon's _quant module is not built")
U8 = np.uint8


def _bmm(rng):
    a, b, adj_x, adj_y = case(rng, "int8", "int8", "3d", (3, -2, 5), small=(-120, 120))
    ys = float(np.float32(A_SCALE) * np.float32(B_SCALE) / np.float32(2.0 ** -6))
    return bmm_model(a.shape, "int8", 3, b, -2, True, out_shape(a.shape, b.shape, adj_x, adj_y),
                     "int8", ys, 5, adj_x=adj_x, adj_y=adj_y), [a]


def _models(rng) -> dict:
    """kernel class: (model, inputs), one small model per quantized acl_neon kernel."""
    conv, xc = qconv_model("CONV_2D", "int8", *CONV["same_3x3"][:2])
    dw, xd = qconv_model("DEPTHWISE_CONV_2D", "uint8", (1, 6, 7, 8), (1, 3, 3, 8))
    xp, pool = pool_model("MAX_POOL_2D", "2x2_s2_same_odd", "uint8")
    xm, mean = reduce_model("MEAN", ((2, 5, 7, 21), [1, 2], True), "int8", 0.37)

    def q(shape, dtype="int8"):
        return qrand(rng, shape, dtype)

    return {
        "QConv2DLayer": (conv, [xc]),
        "QDepthwiseConv2DLayer": (dw, [xd]),
        "QMaxPool2DLayer": (pool, [q(xp, "uint8")]),
        "QAddSubLayer": (quantized_binary("ADD", (3, 17), (3, 17), "int8",
                                          *add_qp("int8", "wide")), [q((3, 17)), q((3, 17))]),
        "QMulLayer": (quantized_binary("MUL", (4, 5), (5,), "uint8", (0.03, 131), (0.07, 143),
                                       (0.04, 133)), [q((4, 5), "uint8"), q((5,), "uint8")]),
        "QTanhLayer": (quantized_unary("TANH", (2, 33), ("int8", 0.06, 4), ("int8", 1 / 128, 0)),
                       [q((2, 33))]),
        "QMeanLayer": (mean, [q(xm)]),
        "QSoftmaxLayer": (softmax_model("int8", (3, 40), (0.1, 7)), [q((3, 40))]),
        "QConcatLayer": (concat_model([(2, 3), (2, 5)], 1, "uint8", [(0.1, 128), (0.2, 3)],
                                      (0.05, 128)), [q((2, 3), "uint8"), q((2, 5), "uint8")]),
        "QBatchMatMulLayer": _bmm(rng),
    }


def _kernel(session: Session, name: str):
    found = [k for k in kernels(session) if type(k).__name__ == name]
    assert len(found) == 1 and found[0].backend_id == "acl_neon", kernels(session)
    return found[0]


def test_each_kernel_binds_its_native_step():
    for name, (model, inputs) in _models(np.random.default_rng(7)).items():
        session = Session(model, backends="acl_neon")
        k = _kernel(session, name)
        if name == "QBatchMatMulLayer":     # the NumPy GEMM, then the bound requantization
            assert k.native_step is None and k.requant is not None, name
        else:
            assert k.native_step is not None, name
        for got, want in zip(session.run(inputs), tflite_run(model, inputs)):
            assert_close_int(np.asarray(got), want, 0, name)


def test_step_follows_a_replaced_buffer_and_refuses_a_small_one():
    model, x = qconv_model("CONV_2D", "uint8", *CONV["valid_3x3"][:2])
    session = Session(model, backends="acl_neon")
    k = _kernel(session, "QConv2DLayer")
    want = tflite_run(model, [x])[0]
    k.inputs[0].set_buffer(x.copy())
    y = k.outputs[0]
    fresh = np.zeros(y.shape, y.dtype)
    y.set_buffer(fresh)
    run_step(k.native_step)
    assert_close_int(fresh, want, 0, "the step's output, a buffer set after bind")
    y.set_buffer(np.zeros(fresh.size - 1, y.dtype))
    with pytest.raises(RuntimeError, match=f"conv output: buffer of {fresh.size - 1} bytes, "
                                           f"the kernel needs {fresh.size}"):
        run_step(k.native_step)


def test_step_errors_name_the_operand():
    plan = native.module("quant").Lut8Plan(np.arange(256, dtype=U8)[::-1].copy(), 100)
    x, y = np.arange(100, dtype=U8), np.zeros(100, U8)
    run_step(plan.bind(_native.slot(x), _native.slot(y), 1))
    np.testing.assert_array_equal(y, 255 - x)
    with pytest.raises(RuntimeError, match="lut8 input: buffer of 50 bytes, the kernel needs 100"):
        run_step(plan.bind(_native.slot(x[:50].copy()), _native.slot(y), 1))
    with pytest.raises(RuntimeError, match="lut8 input: no buffer is bound"):
        run_step(plan.bind(_native.slot(None), _native.slot(y), 1))
    y.setflags(write=False)
    with pytest.raises(RuntimeError, match="lut8 output: buffer is read-only"):
        run_step(plan.bind(_native.slot(x), _native.slot(y), 1))


def test_concat_plan_checks_its_slots():
    quant = native.module("quant")
    table = np.arange(256, dtype=U8) // 2
    plan = quant.QConcatPlan(2, [3, 5], [table, None])
    a, b, y = np.arange(6, dtype=U8) * 40, np.arange(10, dtype=U8), np.zeros(16, U8)
    slots = [_native.slot(a), _native.slot(b)]
    run_step(plan.bind(slots, _native.slot(y), 2))
    want = np.concatenate([table[a].reshape(2, 3), b.reshape(2, 5)], axis=1).reshape(-1)
    np.testing.assert_array_equal(y, want)
    with pytest.raises(ValueError, match="2 input slots expected"):
        plan.bind(slots[:1], _native.slot(y), 1)
    with pytest.raises(RuntimeError, match="concat output: buffer of 15 bytes"):
        run_step(plan.bind(slots, _native.slot(y[:15].copy()), 1))
    with pytest.raises(ValueError, match="one row size and one table"):
        quant.QConcatPlan(2, [3, 5], [table])
