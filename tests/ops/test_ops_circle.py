"""Circle-only builtins (INSTANCE_NORM, RMS_NORM, ROPE, GRU) and BATCH_MATMUL's Circle option
spelling; BCQ_FULLY_CONNECTED and BCQ_GATHER are refused, naming why. The TFLite interpreter cannot read Circle models: these compare onert_py with NumPy
references written from the op definitions (Samsung ONE's cker / luci-interpreter kernels)."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import ModelBuilder
from op_harness import rand, run_onert

TOL = {"rtol": 1e-5, "atol": 1e-5}


def circle_model(op: str, inputs, consts, out_shape, **options) -> bytes:
    """A Circle model: graph inputs `inputs` [(name, shape)], then constants `consts`
    [(name, array or None for an absent optional input)] in op input order after them."""
    b = ModelBuilder("circle")
    idx = [b.add_input(n, s, "float32") for n, s in inputs]
    idx += [-1 if a is None else b.add_const(n, a) for n, a in consts]
    y = b.add_tensor("y", out_shape, "float32")
    b.add_op(op, idx, [y], **options)
    b.add_output(y)
    return b.build()


def ref_instance_norm(x, gamma, beta, eps):
    axes = tuple(range(1, x.ndim - 1))
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


@pytest.mark.parametrize("shape", [(1, 4, 5, 3), (2, 3, 3, 8), (2, 7, 4)])
@pytest.mark.parametrize("act", ["NONE", "RELU"])
def test_instance_norm(shape, act):
    rng = np.random.default_rng(1)
    c = shape[-1]
    x = rand(rng, shape, low=-3, high=5)
    gamma, beta = rand(rng, (c,)), rand(rng, (c,))
    eps = 1e-3
    model = circle_model("INSTANCE_NORM", [("x", shape)], [("g", gamma), ("b", beta)], shape,
                         epsilon=eps, fused_activation_function=act)
    got = run_onert(model, [x])[0]
    want = ref_instance_norm(x, gamma, beta, eps)
    if act == "RELU":
        want = np.maximum(want, 0)
    assert got.dtype == np.float32 and got.shape == shape
    np.testing.assert_allclose(got, want, **TOL)


@pytest.mark.parametrize("shape,gamma_len", [((1, 2, 3, 16), 16), ((2, 5, 8), 8), ((2, 5, 8), 1)])
def test_rms_norm(shape, gamma_len):
    rng = np.random.default_rng(2)
    x = rand(rng, shape)
    gamma = rand(rng, (gamma_len,))
    eps = 1e-6
    model = circle_model("RMS_NORM", [("x", shape)], [("g", gamma)], shape, epsilon=eps)
    got = run_onert(model, [x])[0]
    x64 = x.astype(np.float64)
    want = x64 / np.sqrt(np.mean(x64 ** 2, axis=-1, keepdims=True) + eps) * gamma
    np.testing.assert_allclose(got, want, **TOL)


def ref_rope_neox(x, sin, cos):
    """Rotate-half form: y = x * cos + rotate_half(x) * sin, rotate_half(x) = [-x2, x1]."""
    h = x.shape[-1] // 2
    rot = np.concatenate([-x[..., h:], x[..., :h]], axis=-1)
    return x * cos + rot * sin


@pytest.mark.parametrize("shape,table", [((1, 2, 3, 8), (1, 1, 1, 8)), ((2, 4, 5, 16), (1, 1, 5, 16))])
@pytest.mark.parametrize("tables_const", [True, False])
def test_rope(shape, table, tables_const):
    rng = np.random.default_rng(3)
    x = rand(rng, shape)
    d = shape[-1]
    pos = np.arange(table[2], dtype=np.float64).reshape(-1, 1)
    inv = 10000.0 ** (-np.arange(d // 2) / (d // 2))
    ang = np.concatenate([pos * inv, pos * inv], axis=-1) + 0.3
    sin = np.sin(ang).reshape(table).astype(np.float32)
    cos = np.cos(ang).reshape(table).astype(np.float32)
    if tables_const:
        model = circle_model("ROPE", [("x", shape)], [("sin", sin), ("cos", cos)], shape,
                             mode="GPT_NEOX")
        got = run_onert(model, [x])[0]
    else:
        model = circle_model("ROPE", [("x", shape), ("sin", table), ("cos", table)], [], shape,
                             mode="GPT_NEOX")
        got = run_onert(model, [x, sin, cos])[0]
    np.testing.assert_allclose(got, ref_rope_neox(x, sin, cos), **TOL)


def test_rope_gptj_is_refused():
    import onert_py
    model = circle_model("ROPE", [("x", (1, 1, 1, 4))],
                         [("sin", np.zeros((1, 1, 1, 4), np.float32)),
                          ("cos", np.ones((1, 1, 1, 4), np.float32))], (1, 1, 1, 4), mode="GPT_J")
    with pytest.raises(onert_py.CompileError, match="GPT_J|mode"):
        onert_py.Session(model, backends="cpu")


def bcq_model(op: str) -> bytes:
    """A Circle BCQ op laid out as the schema says: BCQ_FULLY_CONNECTED (input, weights_scales,
    weights_binary, bias, weights_clusters), BCQ_GATHER (input_scales, input_binary, indices,
    input_clusters)."""
    b = ModelBuilder("circle")
    scales = b.add_const("scales", np.ones(4, np.float32))
    binary = b.add_const("binary", np.zeros((4, 1), np.int32))
    clusters = b.add_const("clusters", np.array([[1, 4]], np.int32))
    if op == "BCQ_FULLY_CONNECTED":
        x = b.add_input("x", (1, 32), "float32")
        bias = b.add_const("bias", np.zeros(4, np.float32))
        y = b.add_tensor("y", (1, 4), "float32")
        b.add_op(op, [x, scales, binary, bias, clusters], [y], weights_hidden_size=32)
    else:
        i = b.add_input("i", (2,), "int32")
        y = b.add_tensor("y", (2, 32), "float32")
        b.add_op(op, [scales, binary, i, clusters], [y], input_hidden_size=32, axis=0)
    b.add_output(y)
    return b.build()


@pytest.mark.parametrize("op", ["BCQ_FULLY_CONNECTED", "BCQ_GATHER"])
def test_neg_compile_bcq_is_refused_naming_why(op, backend):
    """ONE has not published the BCQ arithmetic: no backend runs these ops, and the error (and a
    mapping to a backend) says so rather than only that there is no kernel."""
    import onert_py
    why = "ONE has not published the arithmetic of Circle's BCQ ops"
    with pytest.raises(onert_py.UnsupportedOperationError, match=why) as e:
        onert_py.Session(bcq_model(op), backends=[backend, "cpu"])
    assert e.value.op_index == 0 and set(e.value.reasons) == {backend, "cpu"}
    assert all(why in r for r in e.value.reasons.values())
    with pytest.raises(onert_py.CompileError, match=f"mapped to {backend} .*{why}"):
        onert_py.Session(bcq_model(op), backends=[backend, "cpu"],
                         config={"op_backend": {op: backend}})


def ref_gru(x, wx, bx, wh, bh, h0):
    """Keras-style GRU (reset_after), gates ordered z, r, n."""
    def sig(v):
        return 1 / (1 + np.exp(-v))
    h = h0.astype(np.float64).reshape(x.shape[1], -1)
    n_h = h.shape[1]
    for t in range(x.shape[0]):
        gx = x[t] @ wx.T + (0 if bx is None else bx)
        gh = h @ wh.T + (0 if bh is None else bh)
        z = sig(gx[:, :n_h] + gh[:, :n_h])
        r = sig(gx[:, n_h:2 * n_h] + gh[:, n_h:2 * n_h])
        n = np.tanh(gx[:, 2 * n_h:] + r * gh[:, 2 * n_h:])
        h = z * h + (1 - z) * n
    return h


def test_gru_luci_golden():
    """The published luci-interpreter GRU test vector (T=2, I=2, H=2, no biases, zero state)."""
    x = np.array([0.98045033, 0.39546537, 0.5209594, 0.72873044], np.float32).reshape(2, 1, 2)
    w_x = np.array([0.8073279857635498, -0.5218740105628967, 0.1166749969124794,
                    0.33110499382019043, 0.2770330011844635, 0.23767800629138947,
                    0.1293960064649582, 0.17175200581550598, -0.15584999322891235,
                    0.8137810230255127, -0.2667199969291687, -0.23028500378131866],
                   np.float32).reshape(6, 2)
    w_h = np.array([-0.1928129941225052, -0.4582270085811615, -0.17884500324726105,
                    -0.27543601393699646, 0.704787015914917, 0.1874309927225113,
                    -0.28071099519729614, -0.40605801343917847, -0.4156219959259033,
                    0.6752780079841614, 0.4272859990596771, -0.24114100635051727],
                   np.float32).reshape(6, 2)
    state = np.zeros((1, 2), np.float32)
    model = circle_model("GRU", [("x", (2, 1, 2))],
                         [("wx", w_x), ("bx", None), ("wh", w_h), ("bh", None), ("h0", state)],
                         (1, 1, 2))
    got = run_onert(model, [x])[0]
    assert got.shape == (1, 1, 2)
    np.testing.assert_allclose(got.reshape(-1), [0.22777566, -0.1976251], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("t,i,h", [(5, 3, 4), (1, 6, 2)])
def test_gru_with_bias_and_state(t, i, h):
    rng = np.random.default_rng(4)
    x = rand(rng, (t, 1, i))
    wx, wh = rand(rng, (3 * h, i), low=-1, high=1), rand(rng, (3 * h, h), low=-1, high=1)
    bx, bh = rand(rng, (3 * h,), low=-1, high=1), rand(rng, (3 * h,), low=-1, high=1)
    h0 = rand(rng, (1, h), low=-1, high=1)
    model = circle_model("GRU", [("x", x.shape)],
                         [("wx", wx), ("bx", bx), ("wh", wh), ("bh", bh), ("h0", h0)], (1, h))
    got = run_onert(model, [x])[0]
    np.testing.assert_allclose(got, ref_gru(x.astype(np.float64), wx, bx, wh, bh, h0), **TOL)


@pytest.mark.parametrize("adj_lhs,adj_rhs", [(False, False), (True, False), (False, True),
                                             (True, True)])
def test_batch_matmul_circle_adjoint(adj_lhs, adj_rhs):
    """Circle spells BatchMatMul's options adjoint_lhs/adjoint_rhs; the loader maps them."""
    rng = np.random.default_rng(5)
    a_shape = (2, 4, 3) if adj_lhs else (2, 3, 4)
    b_shape = (2, 5, 4) if adj_rhs else (2, 4, 5)
    a, b = rand(rng, a_shape), rand(rng, b_shape)
    model = circle_model("BATCH_MATMUL", [("a", a_shape), ("b", b_shape)], [], (2, 3, 5),
                         adjoint_lhs=adj_lhs, adjoint_rhs=adj_rhs)
    got = run_onert(model, [a, b])[0]
    aa = a.swapaxes(-1, -2) if adj_lhs else a
    bb = b.swapaxes(-1, -2) if adj_rhs else b
    np.testing.assert_allclose(got, aa.astype(np.float64) @ bb, rtol=1e-5, atol=1e-5)
