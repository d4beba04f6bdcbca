"""Dynamic shapes: batch resize, -1 dims resolved from the inputs, outputs whose shape depends
on data, dynamic tensors freed after their last use. (Loop variables that change shape inside
a While are in test_control_flow.py; single dynamic ops in tests/ops/test_ops_dynamic.py.)"""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.errors import InputError
from onert_py.model_builder import ModelBuilder
from op_harness import session_internals
from oracle import tflite_run

RNG = np.random.default_rng(3)


def mlp(batch_dim: int = -1) -> bytes:
    """x[batch, 8] -> FC(16) relu -> FC(4) -> softmax; batch is -1 in the signature."""
    b = ModelBuilder()
    x = b.add_input("x", (batch_dim, 8))
    w1 = b.add_const("w1", RNG.standard_normal((16, 8)).astype(np.float32))
    b1 = b.add_const("b1", RNG.standard_normal(16).astype(np.float32))
    w2 = b.add_const("w2", RNG.standard_normal((4, 16)).astype(np.float32))
    b2 = b.add_const("b2", RNG.standard_normal(4).astype(np.float32))
    h, z, y = b.add_tensor("h", (batch_dim, 16)), b.add_tensor("z", (batch_dim, 4)), \
        b.add_tensor("y", (batch_dim, 4))
    b.add_op("FULLY_CONNECTED", [x, w1, b1], [h], fused_activation_function="RELU")
    b.add_op("FULLY_CONNECTED", [h, w2, b2], [z])
    b.add_op("SOFTMAX", [z], [y], beta=1.0)
    b.add_output(y)
    return b.build()


def x(batch: int) -> np.ndarray:
    return RNG.standard_normal((batch, 8)).astype(np.float32)


def test_minus_one_dims_are_taken_from_the_inputs() -> None:
    model = mlp()
    with onert_py.Session(model) as sess:
        assert sess.inputs[0].shape == (1, 8)
        for batch in (3, 1, 7, 3):
            inputs = [x(batch)]
            (got,) = sess.run(inputs)
            assert got.shape == (batch, 4)
            np.testing.assert_allclose(got, tflite_run(model, inputs)[0], rtol=1e-5, atol=1e-6)
        assert sess.inputs[0].shape == (3, 8)


def test_fixed_dims_still_refuse_other_shapes() -> None:
    with onert_py.Session(mlp()) as sess:
        with pytest.raises(InputError, match=r"-1 dims of \(-1, 8\)"):
            sess.run([RNG.standard_normal((2, 9)).astype(np.float32)])
    with onert_py.Session(mlp(batch_dim=2)) as sess:    # no -1: resizing is explicit
        with pytest.raises(InputError, match="set_input_shape"):
            sess.run([x(3)])


def test_batch_resize_by_set_input_shape() -> None:
    model = mlp(batch_dim=2)
    with onert_py.Session(model) as sess:
        sess.set_input_shape(0, (5, 8))
        assert sess.inputs[0].shape == (5, 8) and sess.outputs[0].shape == (5, 4)
        inputs = [x(5)]
        np.testing.assert_allclose(sess.run(inputs)[0], tflite_run(model, inputs)[0],
                                   rtol=1e-5, atol=1e-6)


def computed_reshape_model() -> bytes:
    """y = reshape(x, shape(x)[::-1]) through SHAPE -> REVERSE... kept to ops whose shape comes
    from data: the target shape is an input of the model."""
    b = ModelBuilder()
    xi = b.add_input("x", (2, 6))
    shape = b.add_input("shape", (2,), "int32")
    y = b.add_tensor("y", (-1, -1))
    t = b.add_tensor("t", (-1, -1))
    k = b.add_const("k", np.float32(2))
    b.add_op("RESHAPE", [xi, shape], [t])
    b.add_op("MUL", [t, k], [y])
    b.add_output(y)
    return b.build()


def test_output_shape_follows_data_between_runs() -> None:
    model = computed_reshape_model()
    data = RNG.standard_normal((2, 6)).astype(np.float32)
    with onert_py.Session(model) as sess:
        for target in ([3, 4], [12, 1], [2, 6], [3, 4]):
            inputs = [data, np.array(target, np.int32)]
            (got,) = sess.run(inputs)
            assert got.shape == tuple(target)
            np.testing.assert_array_equal(got, tflite_run(model, inputs)[0])


def test_dynamic_intermediates_are_freed_after_their_last_use() -> None:
    model = computed_reshape_model()
    with onert_py.Session(model) as sess:
        sess.run([np.ones((2, 6), np.float32), np.array([3, 4], np.int32)])
        compiled = session_internals(sess).compiled
        g = compiled.lowered.graph
        dynamic = [ctx.tensor_registry.get_native_itensor(i)
                   for ctx in compiled.contexts.values()
                   for i in ctx.data.operands if g.operands[i].dynamic
                   and i not in g.outputs]
        assert dynamic, "the reshape output should be a dynamic tensor"
        assert all(t.buffer is None for t in dynamic)


def test_outputs_are_fresh_arrays_every_run() -> None:
    model = computed_reshape_model()
    with onert_py.Session(model) as sess:
        a = sess.run([np.ones((2, 6), np.float32), np.array([3, 4], np.int32)])[0]
        keep = a.copy()
        b = sess.run([np.zeros((2, 6), np.float32), np.array([3, 4], np.int32)])[0]
        assert a is not b and not np.shares_memory(a, b)
        np.testing.assert_array_equal(a, keep)
