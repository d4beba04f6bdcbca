"""Models written by onert_py.model_builder load and run in the TFLite interpreter and parse as Circle."""

from __future__ import annotations

import inspect
import re

import flatbuffers
import numpy as np
import pytest

import circle_schema.v0_10.circle as circle
import tflite
from onert_py import _schema_options as so
from onert_py.model_builder import DESCRIPTION, ModelBuilder, single_op_model

try:
    from oracle import tflite_run
except ImportError:  # tests collected as a package
    from oracle import tflite_run

RNG = np.random.default_rng(0)


def rand(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def conv2d_same(x: np.ndarray, w: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """NHWC input, OHWI filter, stride 1, SAME padding."""
    kh, kw = w.shape[1:3]
    xp = np.pad(x, ((0, 0), ((kh - 1) // 2, kh // 2), ((kw - 1) // 2, kw // 2), (0, 0)))
    n, h, wd, _ = x.shape
    out = np.zeros((n, h, wd, w.shape[0]), np.float32)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwc,oc->nhwo", xp[:, i:i + h, j:j + wd, :], w[:, i, j, :])
    return out + bias


def tfl_model(data: bytes) -> tflite.Model:
    assert data[4:8] == b"TFL3"
    return tflite.Model.GetRootAsModel(data, 0)


# --------------------------------------------------------------------------- runs in TFLite
def test_add_fused_relu():
    m = single_op_model("ADD", [("a", (2, 3), "float32"), ("b", (2, 3), "float32")],
                        [("y", (2, 3), "float32")], fused_activation_function="RELU")
    a, b = rand(2, 3), rand(2, 3)
    np.testing.assert_allclose(tflite_run(m, [a, b])[0], np.maximum(a + b, 0), rtol=1e-6)


def test_conv2d_with_constants():
    b = ModelBuilder()
    x = b.add_input("x", (1, 8, 8, 3), "float32")
    w_arr, bias_arr = rand(4, 3, 3, 3), rand(4)
    w, bias = b.add_const("w", w_arr), b.add_const("bias", bias_arr)
    y = b.add_tensor("y", (1, 8, 8, 4), "float32")
    b.add_op("CONV_2D", [x, w, bias], [y], padding="SAME", stride_w=1, stride_h=1,
             fused_activation_function="RELU6")
    b.add_output(y)
    xv = rand(1, 8, 8, 3)
    expected = np.clip(conv2d_same(xv, w_arr, bias_arr), 0, 6)
    np.testing.assert_allclose(tflite_run(b.build(), [xv])[0], expected, rtol=1e-4, atol=1e-5)


def test_fully_connected_and_reshape():
    b = ModelBuilder()
    x = b.add_input("x", (2, 6), "float32")
    w_arr, bias_arr = rand(5, 6), rand(5)
    h = b.add_tensor("h", (2, 5), "float32")
    b.add_op("FULLY_CONNECTED", [x, b.add_const("w", w_arr), b.add_const("b", bias_arr)], [h],
             fused_activation_function="NONE", keep_num_dims=False)
    y = b.add_tensor("y", (5, 2), "float32")
    b.add_op("RESHAPE", [h], [y], new_shape=[5, 2])
    b.add_output(y)
    xv = rand(2, 6)
    np.testing.assert_allclose(tflite_run(b.build(), [xv])[0], (xv @ w_arr.T + bias_arr).reshape(5, 2),
                               rtol=1e-5, atol=1e-6)


def test_mean_with_axis_const_and_dynamic_batch():
    b = ModelBuilder()
    x = b.add_input("x", (None, 4, 5), "float32")
    y = b.add_tensor("y", (None, 1, 5), "float32")
    b.add_op("MEAN", [x, b.add_const("axis", np.array([1], np.int32))], [y], keep_dims=True)
    b.add_output(y)
    data = b.build()
    t = tfl_model(data).Subgraphs(0).Tensors(x)
    assert list(t.ShapeAsNumpy()) == [1, 4, 5] and list(t.ShapeSignatureAsNumpy()) == [-1, 4, 5]
    xv = rand(3, 4, 5)
    np.testing.assert_allclose(tflite_run(data, [xv])[0], xv.mean(axis=1, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("op,shape_in,shape_out,opts,ref", [
    ("SOFTMAX", (2, 5), (2, 5), {}, lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    ("MAX_POOL_2D", (1, 4, 4, 2), (1, 2, 2, 2), dict(filter_width=2, filter_height=2, stride_w=2,
                                                        stride_h=2, padding="VALID"),
     lambda x: x.reshape(1, 2, 2, 2, 2, 2).max(axis=(2, 4))),
    ("LEAKY_RELU", (3, 4), (3, 4), dict(alpha=0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    ("SQUEEZE", (1, 3, 1, 4), (3, 4), dict(squeeze_dims=[0, 2]), lambda x: x.reshape(3, 4)),
    ("CAST", (3,), (3,), dict(in_data_type="float32", out_data_type="INT32"), lambda x: x.astype(np.int32)),
])
def test_single_ops_with_options(op, shape_in, shape_out, opts, ref):
    out_dtype = "int32" if op == "CAST" else "float32"
    m = single_op_model(op, [("x", shape_in, "float32")], [("y", shape_out, out_dtype)], **opts)
    xv = rand(*shape_in) * 3
    np.testing.assert_allclose(tflite_run(m, [xv])[0], ref(xv), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fmt_name", ["adj_x", "adjoint_lhs"])
def test_batch_matmul_accepts_both_spellings(fmt_name):
    m = single_op_model("BATCH_MATMUL", [("a", (2, 4, 3), "float32"), ("b", (2, 4, 5), "float32")],
                        [("y", (2, 3, 5), "float32")], **{fmt_name: True})
    a, bv = rand(2, 4, 3), rand(2, 4, 5)
    np.testing.assert_allclose(tflite_run(m, [a, bv])[0], a.transpose(0, 2, 1) @ bv, rtol=1e-5, atol=1e-6)


def test_quantize_dequantize_and_float16_const():
    b = ModelBuilder()
    x = b.add_input("x", (6,), "float32")
    q = b.add_tensor("q", (6,), "int8", quant={"scale": 0.1, "zero_point": 3})
    dq = b.add_tensor("dq", (6,), "float32")
    b.add_op("QUANTIZE", [x], [q])
    b.add_op("DEQUANTIZE", [q], [dq])
    c16 = b.add_const("c16", np.arange(6, dtype=np.float16) / 4)
    c32 = b.add_tensor("c32", (6,), "float32")
    b.add_op("DEQUANTIZE", [c16], [c32])
    y = b.add_tensor("y", (6,), "float32")
    b.add_op("ADD", [dq, c32], [y])
    b.add_output(y)
    xv = np.array([-1.0, -0.26, 0.0, 0.31, 0.5, 2.0], np.float32)
    expected = (np.clip(np.round(xv / 0.1) + 3, -128, 127) - 3) * 0.1 + np.arange(6) / 4
    np.testing.assert_allclose(tflite_run(b.build(), [xv])[0], expected, rtol=1e-5, atol=1e-6)


def test_sparse_constant_densify():
    dense = np.array([[1, 0, 0, 2], [0, 0, 3, 0], [0, 0, 0, 0]], np.float32)
    sparsity = {"traversal_order": [0, 1], "dim_metadata": [
        {"format": "DENSE", "dense_size": 3},
        {"format": "SPARSE_CSR", "array_segments": [0, 2, 3, 3], "array_indices": [0, 3, 2]}]}
    b = ModelBuilder()
    x = b.add_input("x", (3, 4), "float32")
    s = b.add_const("s", np.array([1, 2, 3], np.float32), sparsity=sparsity, shape=(3, 4))
    d = b.add_tensor("d", (3, 4), "float32")
    b.add_op("DENSIFY", [s], [d])
    y = b.add_tensor("y", (3, 4), "float32")
    b.add_op("ADD", [x, d], [y])
    b.add_output(y)
    xv = rand(3, 4)
    np.testing.assert_allclose(tflite_run(b.build(), [xv])[0], xv + dense, rtol=1e-6)


def test_if_with_two_branches():
    b = ModelBuilder()
    cond = b.add_input("cond", (), "bool")
    x = b.add_input("x", (3,), "float32")
    y = b.add_tensor("y", (3,), "float32")
    then_sg, else_sg = b.add_subgraph("then"), b.add_subgraph("else")
    for sg, op in ((then_sg, "ADD"), (else_sg, "MUL")):
        i = b.add_input("in", (3,), "float32", subgraph=sg)
        o = b.add_tensor("out", (3,), "float32", subgraph=sg)
        b.add_op(op, [i, i], [o], subgraph=sg)
        b.add_output(o, subgraph=sg)
    b.add_op("IF", [cond, x], [y], then_subgraph_index=then_sg, else_subgraph_index=else_sg)
    b.add_output(y)
    data = b.build()
    xv = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_allclose(tflite_run(data, [np.array(True), xv])[0], xv + xv)
    np.testing.assert_allclose(tflite_run(data, [np.array(False), xv])[0], xv * xv)
    assert [tfl_model(data).Subgraphs(i).Name() for i in range(3)] == [b"main", b"then", b"else"]


def test_while_loop():
    b = ModelBuilder()
    i0, x0 = b.add_input("i", (), "int32"), b.add_input("x", (2,), "float32")
    i1, x1 = b.add_tensor("i_out", (), "int32"), b.add_tensor("x_out", (2,), "float32")
    cond_sg, body_sg = b.add_subgraph("cond"), b.add_subgraph("body")
    ci, _ = b.add_input("i", (), "int32", subgraph=cond_sg), b.add_input("x", (2,), "float32", subgraph=cond_sg)
    lt = b.add_tensor("lt", (), "bool", subgraph=cond_sg)
    b.add_op("LESS", [ci, b.add_const("n", np.array(5, np.int32), subgraph=cond_sg)], [lt], subgraph=cond_sg)
    b.add_output(lt, subgraph=cond_sg)
    bi, bx = b.add_input("i", (), "int32", subgraph=body_sg), b.add_input("x", (2,), "float32", subgraph=body_sg)
    bi1, bx1 = b.add_tensor("i1", (), "int32", subgraph=body_sg), b.add_tensor("x1", (2,), "float32", subgraph=body_sg)
    b.add_op("ADD", [bi, b.add_const("one", np.array(1, np.int32), subgraph=body_sg)], [bi1], subgraph=body_sg)
    b.add_op("ADD", [bx, bx], [bx1], subgraph=body_sg)
    b.add_output(bi1, subgraph=body_sg)
    b.add_output(bx1, subgraph=body_sg)
    b.add_op("WHILE", [i0, x0], [i1, x1], cond_subgraph_index=cond_sg, body_subgraph_index=body_sg)
    b.add_output(i1)
    b.add_output(x1)
    i_out, x_out = tflite_run(b.build(), [np.array(1, np.int32), np.array([1.0, -0.5], np.float32)])
    assert int(i_out) == 5
    np.testing.assert_allclose(x_out, np.array([1.0, -0.5]) * 2 ** 4)


# --------------------------------------------------------------------------- structure
def test_custom_op_structure_and_model_layout():
    b = ModelBuilder()
    x = b.add_input("x", (2,), "float32")
    c = b.add_const("c", np.array([1.0, 2.0], np.float32))
    y, z, w = (b.add_tensor(n, (2,), "float32") for n in "yzw")
    b.add_op("CUSTOM:MyOp", [x, -1], [y], custom_options=b"\x01\x02")
    b.add_op("ADD", [y, c], [z])
    b.add_op("ADD", [z, c], [w])
    b.add_op("CUSTOM:MyOp", [w], [b.add_tensor("v", (2,), "float32")], version=2)
    b.add_output(w)
    data = b.build()
    m = tfl_model(data)
    assert m.Version() == 3 and m.Description() == DESCRIPTION.encode()
    codes = [(m.OperatorCodes(i).BuiltinCode(), m.OperatorCodes(i).DeprecatedBuiltinCode(),
              m.OperatorCodes(i).CustomCode(), m.OperatorCodes(i).Version()) for i in range(m.OperatorCodesLength())]
    assert codes == [(32, 32, b"MyOp", 1), (0, 0, None, 1), (32, 32, b"MyOp", 2)]
    sg = m.Subgraphs(0)
    op0 = sg.Operators(0)
    assert op0.OpcodeIndex() == 0 and list(op0.InputsAsNumpy()) == [x, -1]
    assert op0.CustomOptionsAsNumpy().tobytes() == b"\x01\x02"
    assert sg.Operators(1).BuiltinOptionsType() == tflite.BuiltinOptions.AddOptions
    assert m.Buffers(0).DataLength() == 0 and m.BuffersLength() == 2
    assert [sg.Tensors(i).Buffer() for i in range(sg.TensorsLength())] == [0, 1, 0, 0, 0, 0]
    buf = m.Buffers(1)
    start = buf._tab.Vector(buf._tab.Offset(4))
    assert start % 16 == 0 and data[start:start + 8] == np.array([1.0, 2.0], np.float32).tobytes()


def test_per_channel_quantization():
    b = ModelBuilder()
    w = b.add_const("w", np.ones((3, 2), np.int8),
                    quant={"scale": [0.1, 0.2, 0.3], "zero_point": 0, "quantized_dimension": 0})
    q = tfl_model(b.build()).Subgraphs(0).Tensors(w).Quantization()
    np.testing.assert_allclose(q.ScaleAsNumpy(), [0.1, 0.2, 0.3], rtol=1e-6)
    assert list(q.ZeroPointAsNumpy()) == [0, 0, 0] and q.QuantizedDimension() == 0
    with pytest.raises(ValueError, match="unknown quantization keys"):
        b.add_tensor("t", (1,), "int8", quant={"scales": 0.1})


def test_string_constant():
    m = single_op_model("EQUAL", [("a", (3,), "string"), np.array(["ab", "", "xyz"])], [("y", (3,), "bool")])
    assert tfl_model(m).Subgraphs(0).Tensors(1).Type() == tflite.TensorType.STRING
    got = tflite_run(m, [np.array([b"ab", b"q", b"xyz"], dtype=object)])[0]
    np.testing.assert_array_equal(got, [True, False, True])


def test_stablehlo_options2_written():
    m = tfl_model(single_op_model("STABLEHLO_CONCATENATE", [("a", (2,), "float32"), ("b", (3,), "float32")],
                                  [("y", (5,), "float32")], dimension=0))
    op = m.Subgraphs(0).Operators(0)
    assert op.BuiltinOptions2Type() == tflite.BuiltinOptions2.StablehloConcatenateOptions
    assert m.OperatorCodes(0).DeprecatedBuiltinCode() == 127 and m.OperatorCodes(0).BuiltinCode() > 127


def test_circle_model_parses_with_circle_schema():
    b = ModelBuilder(fmt="circle")
    x = b.add_input("x", (1, 4, 4, 2), "float32")
    n = b.add_tensor("n", (1, 4, 4, 2), "float32")
    b.add_op("INSTANCE_NORM", [x, b.add_const("g", np.ones(2, np.float32)), b.add_const("be", np.zeros(2, np.float32))],
             [n], epsilon=1e-5, fused_activation_function="NONE")
    y = b.add_tensor("y", (1, 4, 2, 2), "float32")
    b.add_op("BATCH_MATMUL", [n, n], [y], adj_x=True)
    b.add_op("RMS_NORM", [y, b.add_const("g2", np.ones(2, np.float32))], [b.add_tensor("r", (1, 4, 2, 2), "float32")],
             epsilon=1e-6)
    b.add_output(y)
    data = b.build()
    assert circle.Model.Model.ModelBufferHasIdentifier(data, 0) and data[4:8] == b"CIR0"
    m = circle.Model.Model.GetRootAs(data, 0)
    BO = circle.BuiltinOperator.BuiltinOperator
    codes = [(m.OperatorCodes(i).BuiltinCode(), m.OperatorCodes(i).DeprecatedBuiltinCode()) for i in range(3)]
    assert codes == [(BO.INSTANCE_NORM, -2), (BO.BATCH_MATMUL, BO.BATCH_MATMUL), (BO.RMS_NORM, -6)]
    ops = m.Subgraphs(0).Operators
    opt = circle.InstanceNormOptions.InstanceNormOptions()
    opt.Init(ops(0).BuiltinOptions().Bytes, ops(0).BuiltinOptions().Pos)
    assert ops(0).BuiltinOptionsType() == circle.BuiltinOptions.BuiltinOptions.InstanceNormOptions
    assert opt.Epsilon() == pytest.approx(1e-5)
    bmm = circle.BatchMatMulOptions.BatchMatMulOptions()
    bmm.Init(ops(1).BuiltinOptions().Bytes, ops(1).BuiltinOptions().Pos)
    assert bmm.AdjointLhs() and not bmm.AdjointRhs()
    assert m.Description() == DESCRIPTION.encode() and m.Version() == 3



def test_ggml_blocks_written_as_given():
    """add_blocks writes a GGML type and the blocks' bytes unchanged (Circle only)."""
    b = ModelBuilder(fmt="circle")
    blocks = bytes(range(36))                                 # two Q4_0 blocks
    w = b.add_blocks("w", blocks, "GGML_Q4_0", (1, 64))
    b.add_output(b.add_tensor("y", (1, 64), "float32"))
    m = circle.Model.Model.GetRootAs(b.build(), 0)
    t = m.Subgraphs(0).Tensors(w)
    assert t.Type() == circle.TensorType.TensorType.GGML_Q4_0
    assert list(t.ShapeAsNumpy()) == [1, 64]
    assert m.Buffers(t.Buffer()).DataAsNumpy().tobytes() == blocks
    with pytest.raises(ValueError, match="not a GGML block type"):
        b.add_blocks("v", blocks, "int8", (1, 64))
    with pytest.raises(ValueError, match="'GGML_Q4_0' is not a TensorType"):
        ModelBuilder().add_blocks("v", blocks, "GGML_Q4_0", (1, 64))

# --------------------------------------------------------------------------- errors and schema coverage
def test_errors_list_valid_names():
    b = ModelBuilder()
    x = b.add_input("x", (2,), "float32")
    with pytest.raises(ValueError, match="valid names: .*CONV_2D"):
        b.add_op("CONV2D", [x], [x])
    with pytest.raises(ValueError, match=r"valid options: \['dilation_h_factor'"):
        b.add_op("CONV_2D", [x], [x], strides=2)
    with pytest.raises(ValueError, match="valid names: .*RELU6"):
        b.add_op("ADD", [x, x], [x], fused_activation_function="RELU7")
    with pytest.raises(ValueError, match="takes no options"):
        b.add_op("RELU", [x], [x], alpha=1.0)
    with pytest.raises(ValueError, match="unknown tflite operator 'INSTANCE_NORM'"):
        b.add_op("INSTANCE_NORM", [x], [x])
    with pytest.raises(ValueError, match="valid formats"):
        ModelBuilder(fmt="onnx")


@pytest.mark.parametrize("fmt", ["tflite", "circle"])
def test_every_options_table_is_mapped_and_typed(fmt):
    """Each options table of both unions has an operator; enum, string and vector fields are known."""
    schema = so.Schema(fmt)
    mapping = so.op_options_tables(schema.package)
    for union in ("BuiltinOptions", "BuiltinOptions2"):
        tables = set(schema.enum_members(union)) - {"NONE"}
        assert tables <= set(mapping.values()), tables - set(mapping.values())
    for op in mapping:
        spec = schema.op_options(op)
        assert spec is not None
        for f in spec.fields.values():
            src = inspect.getsource(f.add)
            if "PrependInt8Slot" in src or ("PrependUint32Slot" in src and f.name != "subgraph"):
                assert f.kind == "enum", f"{spec.table}.{f.name}"
            if "UOffsetT" in src:
                assert f.kind in ("string", "vector"), f"{spec.table}.{f.name}"
            if f.kind == "vector":  # element type round-trips through the generated reader
                b = flatbuffers.Builder(64)
                b.Finish(schema.write_options(b, spec, {f.name: np.asarray([1, 0, 1], f.dtype)}))
                reader = getattr(schema.module(spec.table), spec.table)()
                buf = b.Output()
                reader.Init(buf, flatbuffers.encode.Get(flatbuffers.packer.uoffset, buf, 0))
                camel = "".join(p[:1].upper() + p[1:] for p in f.name.split("_"))
                got = getattr(reader, camel + "AsNumpy")()
                assert got.dtype.itemsize == np.dtype(f.dtype).itemsize, f"{spec.table}.{f.name}"
                assert got.dtype.kind == np.dtype(f.dtype).kind or f.enum, f"{spec.table}.{f.name}"
                assert list(got) == [1, 0, 1]


def test_camel_to_snake():
    assert [so.camel_to_snake(n) for n in ("StrideW", "DilationWFactor", "PotScaleInt16", "Seed2")] == [
        "stride_w", "dilation_w_factor", "pot_scale_int16", "seed2"]
    assert re.fullmatch(r"[a-z0-9_]+", so.camel_to_snake("FusedActivationFunction"))
