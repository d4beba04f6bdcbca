"""A backend defined only in tests/plugins is found by path, assigned ops, and runs them."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.core.compiler import manager
from builders.small_models import conv_add_relu_model
from oracle import tflite_run
from paths import PLUGINS


def _plugin_module():
    module = manager.module_of("testadd")
    assert module is not None, "testadd is not loaded"
    return module


def test_backend_loaded_by_path_runs_its_op(monkeypatch):
    monkeypatch.setenv("ONERT_BACKEND_PATH", PLUGINS)
    model = conv_add_relu_model()
    sess = onert_py.Session(model, backends="testadd;cpu")
    text = sess.explain()
    assert "ADD" in text and "testadd" in text
    lines = {l.split()[1]: l for l in text.splitlines() if l.strip()[:1].isdigit()}
    assert "testadd" in lines["ADD"] and "cpu" in lines["CONV_2D"] and "cpu" in lines["RELU"]
    assert "cpu refused" not in text and "testadd refused: testadd runs only ADD" in text
    # conv (cpu) -> ADD (testadd) -> RELU (cpu): two crossings; cpu reads the input and
    # writes the output in place (testadd's tensors are not host memory it shares)
    assert "permutes inserted: 2" in text
    x = np.random.default_rng(2).standard_normal((1, 6, 6, 3)).astype(np.float32)
    before = _plugin_module().RUNS["count"]
    out = sess.run([x])
    assert _plugin_module().RUNS["count"] == before + 1
    np.testing.assert_allclose(out[0], tflite_run(model, [x])[0], rtol=1e-5, atol=1e-5)
    sess.close()


def test_backend_found_through_config_backend_paths(monkeypatch):
    monkeypatch.delenv("ONERT_BACKEND_PATH", raising=False)
    sess = onert_py.Session(conv_add_relu_model(), backends=["testadd", "cpu"],
                            config={"backend_paths": [PLUGINS]})
    assert sess.backends == ["testadd", "cpu"]
    sess.close()


def test_explicit_mapping_to_a_refusing_backend_is_a_compile_error(monkeypatch):
    monkeypatch.setenv("ONERT_BACKEND_PATH", PLUGINS)
    with pytest.raises(onert_py.CompileError, match="testadd runs only ADD"):
        onert_py.Session(conv_add_relu_model(), backends="testadd;cpu",
                         config={"op_backend": {"CONV_2D": "testadd"}})


def test_destroy_called_when_last_session_closes(monkeypatch):
    monkeypatch.setenv("ONERT_BACKEND_PATH", PLUGINS)
    model = conv_add_relu_model()
    a = onert_py.Session(model, backends="testadd;cpu")
    b = onert_py.Session(model, backends="testadd;cpu")
    destroyed = _plugin_module().DESTROYED
    start = destroyed["count"]
    assert manager.users("testadd") >= 2
    a.close()
    assert destroyed["count"] == start
    b.close()
    assert destroyed["count"] == start + 1


def test_session_closed_while_a_backend_loads_does_not_deadlock(monkeypatch):
    """A Session collected while another is loading backends (its __del__ releases backends
    on the loading thread) must not wait for the manager's lock forever."""
    import sys
    import threading
    monkeypatch.setenv("ONERT_BACKEND_PATH", PLUGINS)
    model = conv_add_relu_model()
    if PLUGINS not in sys.path:
        sys.path.append(PLUGINS)
    import gcclose_state as plugin
    plugin.SESSION["s"] = onert_py.Session(model, backends="cpu")
    users = manager.users("cpu")
    done: list = []
    t = threading.Thread(target=lambda: done.append(
        onert_py.Session(model, backends="gcclose;cpu").run(np.zeros((1, 6, 6, 3), np.float32))),
        daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), "deadlock: the manager's lock was taken again on the same thread"
    assert done and plugin.SESSION["s"] is None
    assert manager.users("cpu") <= users
