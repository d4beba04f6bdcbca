"""onert_py.ray's Serve deployment over HTTP on 127.0.0.1: concurrent JSON and NumPy requests
are batched together and answered with a plain Session's outputs; a bad request gets 400 and
the reason, without failing the requests batched with it."""
from __future__ import annotations

import io
import json
import socket
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("onert_py.ray", reason="Ray is not installed (pip install \"onert_py[ray]\")")
serve = pytest.importorskip("ray.serve", reason="Ray Serve is not installed (onert_py[ray])")

import onert_py  # noqa: E402
from builders.ray_models import add_mul_model  # noqa: E402
from onert_py.ray import serve_app  # noqa: E402

ROUTE = "/add_mul"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def url(ray_local):
    port = free_port()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    try:
        serve.run(serve_app(add_mul_model(), backends="cpu", num_replicas=1, max_batch_size=8,
                            batch_wait_timeout_s=0.25), route_prefix=ROUTE, blocking=False)
        yield f"http://127.0.0.1:{port}{ROUTE}"
    finally:
        serve.shutdown()


def post(url: str, body: bytes, content_type: str):
    req = urllib.request.Request(url, data=body, headers={"Content-Type": content_type})
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.read(), r.headers


def ask(url: str, a: np.ndarray, b: np.ndarray, as_numpy: bool) -> tuple[dict, int]:
    """One request (NumPy .npz or JSON): the outputs by name and the batch it ran in."""
    if as_numpy:
        buf = io.BytesIO()
        np.savez(buf, a=a, b=b)
        body, headers = post(url, buf.getvalue(), "application/octet-stream")
        with np.load(io.BytesIO(body)) as z:
            outs = {k: z[k] for k in z.files}
    else:
        body, headers = post(url, json.dumps({"inputs": {"a": a.tolist(), "b": b.tolist()}})
                             .encode(), "application/json")
        outs = {k: np.asarray(v, np.float32) for k, v in json.loads(body)["outputs"].items()}
    return outs, int(headers["X-Onert-Batch-Rows"])


def test_concurrent_requests_are_batched_and_match_a_session(url):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((16, 4)).astype(np.float32)
    b = rng.standard_normal((16, 4)).astype(np.float32)
    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda k: ask(url, a[k], b[k], as_numpy=k % 2 == 1), range(16)))
    with onert_py.Session(add_mul_model(), backends="cpu") as s:
        for k, (outs, _) in enumerate(answers):
            want = s.run({"a": a[k:k + 1], "b": b[k:k + 1]})
            assert sorted(outs) == ["prod", "sum"]
            np.testing.assert_array_equal(outs["sum"], want[0][0])
            np.testing.assert_array_equal(outs["prod"], want[1][0])
    assert max(rows for _, rows in answers) > 1, "no two concurrent requests were batched"


def test_bad_request_gets_400_naming_the_problem(url):
    """JSON integers are floats for a float input; a wrong shape is refused alone."""
    with ThreadPoolExecutor(2) as pool:
        bad = pool.submit(post, url, json.dumps({"a": [1, 2, 3], "b": [1, 2, 3, 4]}).encode(),
                          "application/json")
        good = pool.submit(ask, url, np.ones(4, np.float32), np.full(4, 2, np.float32), False)
        with pytest.raises(urllib.error.HTTPError) as e:
            bad.result()
        outs, _ = good.result()
    assert e.value.code == 400
    assert "input 'a' has shape (3,), expected (4,)" in json.loads(e.value.read())["error"]
    np.testing.assert_array_equal(outs["sum"], np.full(4, 4, np.float32))
    np.testing.assert_array_equal(outs["prod"], np.full(4, 2, np.float32))


def test_deployment_handle_takes_and_gives_arrays(url):
    handle = serve.get_app_handle("default")
    outs = handle.remote({"a": np.ones(4, np.float32), "b": np.full(4, 3, np.float32)}).result()
    np.testing.assert_array_equal(outs["sum"], np.full(4, 5, np.float32))
    np.testing.assert_array_equal(outs["prod"], np.full(4, 3, np.float32))
