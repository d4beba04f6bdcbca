"""Quantized (int8/uint8/int16) data-movement ops against the interpreter, bit-exact: values
move unchanged, padding takes the output's zero point, CONCATENATION requantizes uint8 inputs,
and forms TFLite refuses (requantizing int8/int16 CONCATENATION, PACK, PADV2 constants with
other parameters) are refused at compile time."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import ModelBuilder, single_op_model
from builders.qmove import CASES, case_model, concat_case, q
from builders.quant import QTYPES, qdict
from op_harness import with_fallback
from quant_harness import check_qop, qrand

DTYPES = ["int8", "uint8", "int16"]
I32 = np.int32


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_q_move(backend, name, dtype):
    shape, model = case_model(name, dtype)
    if dtype == "int16" and name in ("space_to_depth", "depth_to_space"):
        with pytest.raises(onert_py.CompileError):     # as the interpreter's Prepare refuses
            onert_py.Session(model, backends=with_fallback(backend))
        return
    try:
        check_qop(model, [qrand(np.random.default_rng(len(name)), shape, dtype)], backend)
    except (RuntimeError, ValueError) as e:
        if "onert" in type(e).__module__:
            raise
        pytest.skip(f"interpreter refuses quantized {name} {dtype}: {str(e)[:100]}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["PAD", "SPACE_TO_BATCH_ND"])
def test_q_pad_uses_output_zero_point(backend, op, dtype):
    """PAD pads with the output's zero point (here not the input's); SPACE_TO_BATCH_ND needs
    them equal (space_to_batch_nd.cc Prepare) and pads with it."""
    shift = 0 if dtype == "int16" or op == "SPACE_TO_BATCH_ND" else 7
    if op == "PAD":
        consts, out = [np.array([[1, 0], [2, 1]], I32)], (5, 6)
        shape = (3, 3)
    else:
        consts, out = [np.array([2, 2], I32), np.array([[1, 1], [0, 2]], I32)], (4, 2, 3, 2)
        shape = (1, 2, 4, 2)
    model = single_op_model(op, [q("x", shape, dtype)] + consts, [q("y", out, dtype, shift)])
    check_qop(model, [qrand(np.random.default_rng(1), shape, dtype)], backend)
    if op == "SPACE_TO_BATCH_ND" and dtype != "int16":
        bad = single_op_model(op, [q("x", shape, dtype)] + consts, [q("y", out, dtype, 7)])
        with pytest.raises(onert_py.CompileError, match="same scale and zero point"):
            onert_py.Session(bad, backends=with_fallback(backend))


def padv2_model(dtype, value, vq):
    b = ModelBuilder()
    x = b.add_input("x", (2, 3), dtype, quant=q("x", (2, 3), dtype)[3])
    pads = b.add_const("pads", np.array([[1, 1], [0, 2]], I32))
    c = b.add_const("value", np.array(value, dtype), quant=vq)
    y = b.add_tensor(*q("y", (4, 5), dtype))
    b.add_op("PADV2", [x, pads, c], [y])
    b.add_output(y)
    return b.build()


@pytest.mark.parametrize("dtype", DTYPES)
def test_q_padv2_constant(backend, dtype):
    _, scale, zp = QTYPES[dtype]
    model = padv2_model(dtype, 5, qdict(scale, zp))
    check_qop(model, [qrand(np.random.default_rng(2), (2, 3), dtype)], backend)
    bad = padv2_model(dtype, 5, qdict(scale * 2, zp))
    with pytest.raises(onert_py.CompileError, match="same scale and zero point"):
        onert_py.Session(bad, backends=with_fallback(backend))


@pytest.mark.parametrize("dtype", DTYPES)
def test_q_concat_same_params(backend, dtype):
    _, scale, zp = QTYPES[dtype]
    shapes, model = concat_case(dtype, [(scale, zp)] * 3)
    rng = np.random.default_rng(3)
    check_qop(model, [qrand(rng, s, dtype) for s in shapes], backend)


def test_q_concat_uint8_requantizes(backend):
    """uint8 CONCATENATION rescales each input with other parameters to the output's."""
    _, scale, zp = QTYPES["uint8"]
    shapes, model = concat_case("uint8", [(scale * 0.5, 10), (scale, zp), (scale * 3.3, 200)])
    rng = np.random.default_rng(4)
    xs = [qrand(rng, s, "uint8") for s in shapes]
    xs[0][0, :] = [1, 3, 5]                   # exact .5 ties of q * 0.5
    check_qop(model, xs, backend)


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_q_concat_refuses_requantization(backend, dtype):
    _, scale, zp = QTYPES[dtype]
    _, model = concat_case(dtype, [(scale, zp), (scale * 2, zp), (scale, zp)])
    with pytest.raises(onert_py.CompileError, match="same scale and zero point"):
        onert_py.Session(model, backends=with_fallback(backend))


@pytest.mark.parametrize("dtype", DTYPES)
def test_q_pack(backend, dtype):
    model = single_op_model("PACK", [q("a", (2, 3), dtype), q("b", (2, 3), dtype)],
                            [q("y", (2, 2, 3), dtype)], values_count=2, axis=1)
    rng = np.random.default_rng(5)
    check_qop(model, [qrand(rng, (2, 3), dtype), qrand(rng, (2, 3), dtype)], backend)
    bad = single_op_model("PACK", [q("a", (2, 3), dtype, scale_mul=2), q("b", (2, 3), dtype)],
                          [q("y", (2, 2, 3), dtype)], values_count=2, axis=1)
    with pytest.raises(onert_py.CompileError, match="same scale and zero point"):
        onert_py.Session(bad, backends=with_fallback(backend))


@pytest.mark.parametrize("dtype", ["int8", "uint8"])    # the interpreter refuses int16
@pytest.mark.parametrize("op", ["ARG_MAX", "ARG_MIN"])
def test_q_arg_min_max(backend, op, dtype):
    model = single_op_model(op, [q("x", (3, 7), dtype), np.array([1], I32)],
                            [("y", (3,), "int32")], output_type="INT32")
    check_qop(model, [qrand(np.random.default_rng(6), (3, 7), dtype)], backend)


@pytest.mark.parametrize("dtype", DTYPES)
def test_q_topk(backend, dtype):
    model = single_op_model("TOPK_V2", [q("x", (3, 9), dtype), np.array(4, I32)],
                            [q("v", (3, 4), dtype), ("i", (3, 4), "int32")])
    x = np.stack([np.random.default_rng(i).permutation(np.arange(9)) for i in range(3)])
    check_qop(model, [x.astype(dtype)], backend)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["SELECT", "SELECT_V2"])
def test_q_select(backend, op, dtype):
    model = single_op_model(op, [("c", (2, 5), "bool"), q("a", (2, 5), dtype),
                                 q("b", (2, 5), dtype)], [q("y", (2, 5), dtype)])
    rng = np.random.default_rng(8)
    check_qop(model, [rng.integers(0, 2, (2, 5)).astype(bool), qrand(rng, (2, 5), dtype),
                      qrand(rng, (2, 5), dtype)], backend)
