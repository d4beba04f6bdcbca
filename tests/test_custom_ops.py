"""Custom ops: register_custom_op with functions and Kernel subclasses, compile-time refusal of
unregistered ones, static/dynamic outputs, overriding the bundled kernels; MediaPipe's
Convolution2DTransposeBias against the same computation rewritten as TRANSPOSE_CONV + SLICE +
ADD for the TFLite interpreter, and the real selfie segmentation model against LiteRT/XNNPACK."""
from __future__ import annotations

import struct

import numpy as np
import pytest

import onert_py
from builders.shared_models import model_path
from onert_py.custom_ops import Kernel, custom_op, lookup_custom_op, registered_custom_ops
from onert_py.model_builder import ModelBuilder
from op_harness import ACCUMULATE, assert_outputs, rand
from oracle import tflite_run

F32, I32 = np.float32, np.int32


def custom_model(code: str, in_shape=(2, 3), out_shapes=((2, 3),), options: bytes = b"",
                 out_dtype="float32", const: np.ndarray | None = None) -> bytes:
    b = ModelBuilder()
    x = b.add_input("x", in_shape)
    ins = [x] + ([b.add_const("c", const)] if const is not None else [])
    outs = [b.add_tensor(f"y{k}", s, out_dtype) for k, s in enumerate(out_shapes)]
    b.add_op(f"CUSTOM:{code}", ins, outs, custom_options=options)
    for o in outs:
        b.add_output(o)
    return b.build()


def scale_by_option(inputs, options):
    return inputs[0] * np.float32(options[0])


# ---- function kernels ------------------------------------------------------------------------
def test_function_kernel_gets_inputs_and_options(rng):
    model = custom_model("Scale", options=bytes([3]))
    x = rand(rng, (2, 3))
    with custom_op("Scale", scale_by_option):
        (y,) = onert_py.Session(model).run([x])
    np.testing.assert_array_equal(y, x * 3)


def test_function_kernel_multiple_outputs_and_constant_input(rng):
    c = rand(rng, (2, 3))

    def split_sum(inputs, options):
        x, k = inputs
        assert not x.flags.writeable and k.shape == (2, 3) and options == b""
        return [x + k, (x - k).sum(axis=1, keepdims=True)]

    model = custom_model("SplitSum", out_shapes=((2, 3), (2, 1)), const=c)
    x = rand(rng, (2, 3))
    with custom_op("SplitSum", split_sum):
        y0, y1 = onert_py.Session(model).run([x])
    np.testing.assert_allclose(y0, x + c)
    np.testing.assert_allclose(y1, (x - c).sum(axis=1, keepdims=True), rtol=1e-6)


def test_register_and_unregister_public_api(rng):
    model = custom_model("Twice")
    onert_py.register_custom_op("Twice", lambda ins, opts: ins[0] * 2)
    try:
        assert registered_custom_ops()["Twice"] == "user"
        x = rand(rng, (2, 3))
        np.testing.assert_array_equal(onert_py.Session(model).run([x])[0], 2 * x)
    finally:
        onert_py.unregister_custom_op("Twice")
    assert lookup_custom_op("Twice") is None
    with pytest.raises(onert_py.UnsupportedOperationError):
        onert_py.Session(model)
    with pytest.raises(KeyError, match="Twice"):
        onert_py.unregister_custom_op("Twice")


def test_unregistered_custom_op_fails_at_compile_time():
    model = custom_model("NoSuchOp")
    with pytest.raises(onert_py.UnsupportedOperationError) as info:
        onert_py.Session(model)
    msg = str(info.value)
    assert "NoSuchOp" in msg and "op #0" in msg and "onert_py.register_custom_op(" in msg
    assert info.value.op_index == 0


def test_bad_registrations_are_type_errors():
    with pytest.raises(TypeError, match="non-empty string"):
        onert_py.register_custom_op("", scale_by_option)
    with pytest.raises(TypeError, match="Kernel subclass"):
        onert_py.register_custom_op("X", 42)
    with pytest.raises(TypeError, match="must subclass"):
        onert_py.register_custom_op("X", dict)


@pytest.mark.parametrize("result, match", [
    (lambda x: x.astype(np.float64), "must be float32"),
    (lambda x: x[:1], r"static shape \(2, 3\)"),
    (lambda x: [x, x], "returned 2 array"),
])
def test_function_kernel_result_mismatch_is_execution_error(rng, result, match):
    model = custom_model("Bad")
    with custom_op("Bad", lambda ins, opts: result(ins[0])):
        sess = onert_py.Session(model)
        with pytest.raises(onert_py.ExecutionError, match=match):
            sess.run([rand(rng, (2, 3))])


def test_function_kernel_dynamic_output(rng):
    """An output left open (-1) takes each run's result shape."""
    model = custom_model("Positive", in_shape=(6,), out_shapes=((None,),))
    with custom_op("Positive", lambda ins, opts: ins[0][ins[0] > 0]):
        sess = onert_py.Session(model)
        for x in (np.array([1, -2, 3, 4, -5, 6], F32), np.array([-1, -2, 3, -4, -5, -6], F32)):
            (y,) = sess.run([x])
            np.testing.assert_array_equal(y, x[x > 0])


def test_function_kernel_follows_resized_input(rng):
    model = custom_model("Neg", in_shape=(None, 3), out_shapes=((None, 3),))
    with custom_op("Neg", lambda ins, opts: -ins[0]):
        sess = onert_py.Session(model)
        for n in (2, 5, 1):
            x = rand(rng, (n, 3))
            np.testing.assert_array_equal(sess.run([x])[0], -x)


def test_custom_op_between_builtin_ops(rng):
    b = ModelBuilder()
    x = b.add_input("x", (2, 4))
    t, u, y = b.add_tensor("t", (2, 4)), b.add_tensor("u", (2, 4)), b.add_tensor("y", (2, 4))
    b.add_op("RELU", [x], [t])
    b.add_op("CUSTOM:Square", [t], [u])
    b.add_op("ADD", [u, x], [y], fused_activation_function="NONE")
    b.add_output(y)
    x = rand(rng, (2, 4))
    with custom_op("Square", lambda ins, opts: ins[0] * ins[0]):
        got = onert_py.Session(b.build(), config={"op_backend": {"CUSTOM(Square)": "cpu"}}
                               ).run([x])[0]
    np.testing.assert_allclose(got, np.maximum(x, 0) ** 2 + x, rtol=1e-6)


def test_context_manager_restores_previous_registration(rng):
    model = custom_model("Layered", options=bytes([2]))
    x = rand(rng, (2, 3))
    with custom_op("Layered", scale_by_option):
        with custom_op("Layered", lambda ins, opts: ins[0] + 1):
            np.testing.assert_array_equal(onert_py.Session(model).run([x])[0], x + 1)
        np.testing.assert_array_equal(onert_py.Session(model).run([x])[0], x * 2)
    assert lookup_custom_op("Layered") is None


# ---- Kernel subclasses -----------------------------------------------------------------------
class CumSum(Kernel):
    """Cumulative sum along the axis given by the first options byte; float32 only."""

    @staticmethod
    def supports(op, graph):
        ok = graph.operands[op.inputs[0]].dtype == np.float32
        return ok, "" if ok else "CumSum takes float32"

    def validate(self):
        self.axis = self.op.params.custom_options[0]
        self.prepared = 0

    def prepare(self):
        self.prepared += 1

    def run(self):
        np.cumsum(self.inputs[0].buffer, axis=self.axis, out=self.outputs[0].buffer)


def test_kernel_subclass(rng):
    model = custom_model("CumSum", in_shape=(3, 4), out_shapes=((3, 4),), options=bytes([1]))
    x = rand(rng, (3, 4))
    with custom_op("CumSum", CumSum):
        sess = onert_py.Session(model)
        np.testing.assert_allclose(sess.run([x])[0], np.cumsum(x, axis=1), rtol=1e-6)
        np.testing.assert_allclose(sess.run([x + 1])[0], np.cumsum(x + 1, axis=1), rtol=1e-6)


def test_kernel_subclass_with_shape_fn_on_resized_input(rng):
    model = custom_model("CumSum", in_shape=(None, 4), out_shapes=((None, 4),), options=b"\0")
    with custom_op("CumSum", CumSum, shape_fn=lambda op, shapes, v: [shapes[0]]):
        sess = onert_py.Session(model)
        for n in (3, 6):
            x = rand(rng, (n, 4))
            np.testing.assert_allclose(sess.run([x])[0], np.cumsum(x, axis=0), rtol=1e-5)


def test_kernel_subclass_refusal_is_compile_error():
    b = ModelBuilder()
    x = b.add_input("x", (3,), "int32")
    y = b.add_tensor("y", (3,), "int32")
    b.add_op("CUSTOM:CumSum", [x], [y], custom_options=b"\0")
    b.add_output(y)
    with custom_op("CumSum", CumSum):
        with pytest.raises(onert_py.UnsupportedOperationError, match="CumSum takes float32"):
            onert_py.Session(b.build())


# ---- MediaPipe Convolution2DTransposeBias ----------------------------------------------------
def mp_options(padding: str, sh: int, sw: int) -> bytes:
    return struct.pack("<iii", {"SAME": 1, "VALID": 2}[padding], sw, sh)


def mp_out(size: int, k: int, s: int, padding: str) -> tuple[int, int]:
    """(output size, top padding) of MediaPipe's op."""
    total = max(0, k - (size - 1) % s - 1) if padding == "SAME" else 0
    return s * (size - 1) + k - total, total // 2


def mp_models(xs, w, bias, padding, sh, sw) -> tuple[bytes, bytes]:
    """The custom op, and the same computation as TRANSPOSE_CONV (VALID, full size) + SLICE +
    ADD for the interpreter."""
    (oh, top), (ow, left) = mp_out(xs[1], w.shape[1], sh, padding), mp_out(xs[2], w.shape[2], sw,
                                                                           padding)
    out = (xs[0], oh, ow, w.shape[0])
    b = ModelBuilder()
    x = b.add_input("x", xs)
    y = b.add_tensor("y", out)
    b.add_op("CUSTOM:Convolution2DTransposeBias", [x, b.add_const("w", w), b.add_const("b", bias)],
             [y], custom_options=mp_options(padding, sh, sw))
    b.add_output(y)
    r = ModelBuilder()
    x = r.add_input("x", xs)
    full = (xs[0], (xs[1] - 1) * sh + w.shape[1], (xs[2] - 1) * sw + w.shape[2], w.shape[0])
    t, c, y = r.add_tensor("t", full), r.add_tensor("c", out), r.add_tensor("y", out)
    r.add_op("TRANSPOSE_CONV", [r.add_const("s", np.array(full, I32)), r.add_const("w", w), x],
             [t], padding="VALID", stride_h=sh, stride_w=sw)
    r.add_op("SLICE", [t, r.add_const("begin", np.array([0, top, left, 0], I32)),
                       r.add_const("size", np.array(out, I32))], [c])
    r.add_op("ADD", [c, r.add_const("b", bias)], [y])
    r.add_output(y)
    return b.build(), r.build()


MP_CASES = {   # input NHWC, weights OHWI, stride (h, w), padding
    "selfie_like": ((1, 8, 8, 16), (1, 2, 2, 16), (2, 2), "SAME"),
    "same_k3_s2": ((1, 5, 6, 4), (3, 3, 3, 4), (2, 2), "SAME"),
    "same_k3_s1": ((1, 5, 6, 4), (3, 3, 3, 4), (1, 1), "SAME"),
    "same_k4_s1_odd_pad": ((1, 4, 5, 2), (2, 4, 4, 2), (1, 1), "SAME"),
    "same_k4_s3": ((2, 4, 3, 3), (2, 4, 4, 3), (3, 3), "SAME"),
    "valid_k3_s2": ((1, 5, 6, 4), (3, 3, 3, 4), (2, 2), "VALID"),
    "valid_stride_1x2": ((1, 4, 5, 2), (3, 3, 2, 2), (1, 2), "VALID"),
}


@pytest.mark.parametrize("case", list(MP_CASES))
def test_convolution2d_transpose_bias(rng, case):
    xs, ws, (sh, sw), padding = MP_CASES[case]
    model, ref = mp_models(xs, rand(rng, ws), rand(rng, ws[:1]), padding, sh, sw)
    x = rand(rng, xs)
    assert_outputs(onert_py.Session(model).run([x]), tflite_run(ref, [x]), label=case,
                   **ACCUMULATE)


def test_convolution2d_transpose_bias_can_be_overridden(rng):
    model, _ = mp_models((1, 2, 2, 1), np.ones((1, 2, 2, 1), F32), np.zeros(1, F32), "SAME",
                         2, 2)
    x = rand(rng, (1, 2, 2, 1))
    assert lookup_custom_op("Convolution2DTransposeBias").bundled
    with custom_op("Convolution2DTransposeBias", lambda ins, opts: np.zeros((1, 4, 4, 1), F32)):
        assert not onert_py.Session(model).run([x])[0].any()
    assert onert_py.Session(model).run([x])[0].any()


@pytest.mark.parametrize("options, match", [
    (struct.pack("<iii", 7, 2, 2), "unknown padding 7"),
    (struct.pack("<iii", 1, 0, 2), "strides must be positive"),
    (b"\x01\x00", "needs 12 bytes"),
])
def test_convolution2d_transpose_bias_bad_options_refused(options, match):
    b = ModelBuilder()
    x = b.add_input("x", (1, 2, 2, 1))
    y = b.add_tensor("y", (1, 4, 4, 1))
    b.add_op("CUSTOM:Convolution2DTransposeBias",
             [x, b.add_const("w", np.ones((1, 2, 2, 1), F32)), b.add_const("b", np.zeros(1, F32))],
             [y], custom_options=options)
    b.add_output(y)
    with pytest.raises(onert_py.UnsupportedOperationError, match=match):
        onert_py.Session(b.build())


def rewrite_mediapipe_ops(data: bytes) -> bytes:
    """The model with every Convolution2DTransposeBias replaced by TRANSPOSE_CONV (VALID, full
    output size, bias as its 4th input), which the builtin interpreter runs. Only for ops whose
    SAME padding is zero (then both compute the same thing); others fail the assertion."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as S

    m = S.ModelT.InitFromPackedBuf(data, 0)
    custom = {k for k, c in enumerate(m.operatorCodes)
              if c.customCode == b"Convolution2DTransposeBias"}
    code = S.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = S.BuiltinOperator.TRANSPOSE_CONV
    code.version = 3
    m.operatorCodes.append(code)
    count = 0
    for sg in m.subgraphs:
        for op in sg.operators:
            if op.opcodeIndex not in custom:
                continue
            padding, sw, sh = struct.unpack("<iii", bytes(op.customOptions[:12]))
            x, w, bias = (sg.tensors[i].shape for i in op.inputs)
            full = [x[0], (x[1] - 1) * sh + w[1], (x[2] - 1) * sw + w[2], w[0]]
            assert list(sg.tensors[op.outputs[0]].shape) == full, "SAME padding not zero"
            buf = S.BufferT()
            buf.data = np.frombuffer(np.array(full, I32).tobytes(), np.uint8)
            m.buffers.append(buf)
            t = S.TensorT()
            t.shape, t.type, t.buffer, t.name = [4], S.TensorType.INT32, len(m.buffers) - 1, b"os"
            sg.tensors.append(t)
            opts = S.TransposeConvOptionsT()
            opts.padding, opts.strideH, opts.strideW = S.Padding.VALID, sh, sw
            op.opcodeIndex = len(m.operatorCodes) - 1
            op.inputs = [len(sg.tensors) - 1, op.inputs[1], op.inputs[0], op.inputs[2]]
            op.builtinOptionsType, op.builtinOptions = S.BuiltinOptions.TransposeConvOptions, opts
            op.customOptions = None
            count += 1
    assert count, "no Convolution2DTransposeBias op found"
    b = flatbuffers.Builder(len(data) + 4096)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def selfie_inputs(shape) -> list[np.ndarray]:
    """Uniform noise, and blocky noise (which gives a mask with both classes)."""
    rng = np.random.default_rng(0)
    n, h, w, c = shape
    blocks = np.kron(rng.uniform(0, 1, (n, h // 16, w // 16, c)), np.ones((1, 16, 16, 1)))
    return [rng.uniform(0, 1, shape).astype(F32), blocks.astype(F32)]


def test_selfie_segmentation_matches_rewritten_model():
    """The real model on onert_py (bundled kernel) against the interpreter's builtin kernels
    running it with the custom op rewritten as TRANSPOSE_CONV. Float sums over 246 ops differ
    by up to 4e-5 on the blocky input with OpenBLAS's AVX2 kernels, and by up to 2.1e-4 with its
    AVX-512 (SkylakeX) ones, which sum in another order; XNNPACK differs from the builtin
    kernels by 4e-4."""
    path = model_path("selfie_segmentation")
    with open(path, "rb") as f:
        reference = rewrite_mediapipe_ops(f.read())
    sess = onert_py.Session(path, backends="cpu")
    for x in selfie_inputs(sess.inputs[0].shape):
        (got,) = sess.run([x])
        (want,) = tflite_run(reference, [x])
        assert got.shape == want.shape == (1, 256, 256, 1) and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=0, atol=3e-4)


def test_selfie_segmentation_matches_xnnpack():
    """LiteRT with XNNPACK runs the custom op itself; its kernels sum in another order."""
    path = model_path("selfie_segmentation")
    sess = onert_py.Session(path, backends="cpu")
    for x in selfie_inputs(sess.inputs[0].shape):
        (got,) = sess.run([x])
        (want,) = tflite_run(path, [x], xnnpack=True)
        assert got.shape == want.shape == (1, 256, 256, 1) and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-3)
