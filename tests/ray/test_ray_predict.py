"""onert_py.ray's OnertPredictor and predict() on a local Ray with 2 CPUs: every row's outputs
equal a plain Session's (matched by an id column) for multi-input/multi-output, batch-1 and
batch-N models, resized or run row by row; a killed worker loses and duplicates no row; a
malformed row is named in the error."""
from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("onert_py.ray", reason="Ray is not installed (pip install \"onert_py[ray]\")")

import ray.data  # noqa: E402

import onert_py  # noqa: E402
from builders.ray_models import add_mul_model, conv_reshape_model  # noqa: E402
from builders.small_models import conv_add_relu_model  # noqa: E402
from onert_py.ray import OnertPredictor, RowInputError, predict  # noqa: E402

# name: (model, model batch, whether resizing the batch works)
MODELS = {
    "add_mul_b1": (add_mul_model, 1, True),             # 2 inputs, 2 outputs
    "add_mul_b3": (lambda: add_mul_model(3), 3, False),  # inputs resized one at a time: no
    "conv_b1": (conv_add_relu_model, 1, True),
    "reshape_b1": (conv_reshape_model, 1, False),       # constant reshape: row by row
    "reshape_b3": (lambda: conv_reshape_model(3), 3, False),
}


def columns(model: bytes, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """An id column and one column of n random samples per model input."""
    rng = np.random.default_rng(seed)
    with onert_py.Session(model) as s:
        cols = {info.name: rng.standard_normal((n, *info.shape[1:])).astype(info.dtype)
                for info in s.inputs}
    return {"id": np.arange(100, 100 + n), **cols}


def plain_outputs(model: bytes, cols: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every row's outputs from a plain Session at the model's own batch B: rows in groups of
    B in id order, the last group completed with copies of its last row."""
    with onert_py.Session(model, backends="cpu") as s:
        batch = s.inputs[0].shape[0]
        n = len(cols["id"])
        got: dict[str, list] = {o.name: [] for o in s.outputs}
        for start in range(0, n, batch):
            rows = np.minimum(np.arange(start, start + batch), n - 1)
            outs = s.run({i.name: cols[i.name][rows] for i in s.inputs})
            for o, v in zip(s.outputs, outs):
                got[o.name].append(v[:min(batch, n - start)])
    return {k: np.concatenate(v) for k, v in got.items()}


def assert_rows_match(rows: list[dict], cols: dict[str, np.ndarray], want: dict[str, np.ndarray]):
    """Each id once; each row's inputs are its own and its outputs equal the plain Session's."""
    ids = sorted(int(r["id"]) for r in rows)
    assert ids == list(cols["id"]), "rows lost or duplicated"
    for r in rows:
        k = int(r["id"]) - 100
        for name, values in want.items():
            np.testing.assert_array_equal(r[name], values[k], err_msg=f"id {r['id']} {name}")
        for name in cols:
            if name != "id":
                np.testing.assert_array_equal(r[name], cols[name][k])


# ---- the predictor alone (no Ray): how it runs a batch -------------------------------------
@pytest.mark.parametrize("name", MODELS)
def test_predictor_runs_batches_like_a_plain_session(name):
    make, batch, resizable = MODELS[name]
    model = make()
    p = OnertPredictor(model, backends="cpu", batch_size=8, id_column="id")
    assert (p.model_batch, p.resizable) == (batch, resizable)
    assert p.rows_per_run == (8 if resizable else batch)
    cols = columns(model, 21)
    got = [p({k: v[s:s + 8] for k, v in cols.items()}) for s in range(0, 21, 8)]
    rows = [{k: v[i] for k, v in g.items()} for g in got for i in range(len(g["id"]))]
    assert_rows_match(rows, cols, plain_outputs(model, cols))


def test_predictor_without_batch_size_compiles_for_the_largest_batch():
    p = OnertPredictor(conv_add_relu_model(), backends="cpu")
    cols = columns(conv_add_relu_model(), 12)
    p({k: v[:5] for k, v in cols.items()})
    assert p.rows_per_run == 5
    out = p({k: v for k, v in cols.items()})
    assert p.rows_per_run == 12
    np.testing.assert_array_equal(out["y"], plain_outputs(conv_add_relu_model(), cols)["y"])


def test_predictor_short_batch_is_padded_or_recompiled_by_cost():
    p = OnertPredictor(conv_add_relu_model(), backends="cpu", batch_size=8, keep_columns=["id"])
    cols = columns(conv_add_relu_model(), 8)
    p.seconds_per_row, p.seconds_per_compile = 1e-3, 1.0        # padding is cheap: pad
    assert sorted(p({k: v[:3] for k, v in cols.items()})) == ["id", "y"]
    assert p.rows_per_run == 8
    p.seconds_per_row, p.seconds_per_compile = 1.0, 1e-3        # compiling is cheap: resize
    out = p({k: v[:3] for k, v in cols.items()})
    assert p.rows_per_run == 3
    np.testing.assert_array_equal(out["y"], plain_outputs(conv_add_relu_model(), cols)["y"][:3])


def test_predictor_tune_keeps_the_run_size_with_least_time_per_row():
    """tune=True: runs of 1, 2, 4, 8 rows are timed on the first batch (here a run of k rows
    is made to take 4 ms + 1 ms a row up to 4 rows, 4 ms a row beyond: 4 rows is the least
    per row), timing stops at the first size 25% slower than the best, the predictor keeps 4
    rows per run, and every row's outputs are still the plain Session's."""
    import time as _time
    model = conv_add_relu_model()
    p = OnertPredictor(model, backends="cpu", batch_size=16, tune=True)
    run = p.session.run

    def slow_run(xs, *args, **kwargs):
        k = len(xs[0])
        _time.sleep(0.004 + (0.001 * k if k <= 4 else 0.004 * k))
        return run(xs, *args, **kwargs)

    p.session.run = slow_run
    cols = columns(model, 21)
    out = p({k: v[:16] for k, v in cols.items()})
    assert sorted(p.tuning) == [1, 2, 4, 8]           # 16 not tried: 8 was already too slow
    assert min(p.tuning, key=p.tuning.get) == 4 and p.target_rows == 4
    rest = p({k: v[16:] for k, v in cols.items()})     # a run of 4 rows, then 1 row
    assert p.target_rows == 4 and sorted(p.tuning) == [1, 2, 4, 8]   # tuned once
    want = plain_outputs(model, cols)["y"]
    np.testing.assert_array_equal(np.concatenate([out["y"], rest["y"]]), want)


def test_predictor_tune_on_a_model_that_cannot_resize_runs_row_by_row():
    p = OnertPredictor(conv_reshape_model(), backends="cpu", batch_size=8, tune=True)
    cols = columns(conv_reshape_model(), 8)
    out = p(cols)
    assert (p.resizable, p.tuning, p.rows_per_run) == (False, None, 1)
    want = plain_outputs(conv_reshape_model(), cols)["logits"]
    np.testing.assert_array_equal(out["logits"], want)


def test_predictor_errors_name_the_row_and_what_fits():
    p = OnertPredictor(add_mul_model(), backends="cpu", id_column="id")
    good = np.zeros(4, np.float32)
    ragged = np.empty(3, object)
    ragged[:] = [good, np.zeros(5, np.float32), good]
    with pytest.raises(RowInputError, match=r"row 1 of the batch \(id 8\): input 'a' has shape "
                       r"\(5,\), expected \(4,\)") as e:
        p({"id": np.array([7, 8, 9]), "a": ragged, "b": np.zeros((3, 4), np.float32)})
    assert (e.value.row, e.value.row_id) == (1, 8)
    with pytest.raises(onert_py.InputError,
                       match=r"input 'b'.*expected dtype float32, got float64"):
        p({"id": np.arange(2), "a": np.zeros((2, 4), np.float32), "b": np.zeros((2, 4))})
    with pytest.raises(onert_py.InputError, match=r"nothing named 'b'.*inputs \['a', 'b'\]"):
        p({"a": np.zeros((2, 4), np.float32)})
    with pytest.raises(onert_py.InputError, match="would overwrite the batch's column"):
        p({"a": np.zeros((1, 4), np.float32), "b": np.zeros((1, 4), np.float32),
           "sum": np.zeros(1)})


# ---- on Ray -----------------------------------------------------------------------------------
def test_predict_matches_plain_session_per_id(ray_local):
    """Three models chained in one pipeline (their actor pools start together): a batch-3
    model with two inputs and two outputs, a batch-1 model that runs row by row, and a
    batch-1 model resized to the batch that reads its one input from the column 'data'."""
    models = {name: MODELS[name][0]() for name in ("add_mul_b3", "reshape_b1", "conv_b1")}
    cols = {}
    for seed, model in enumerate(models.values()):
        cols.update(columns(model, 50, seed))
    cols["data"] = cols.pop("x")
    ds = ray.data.from_items([{k: v[i] for k, v in cols.items()} for i in range(50)],
                             override_num_blocks=4)
    for model in models.values():
        ds = predict(ds, model, backends="cpu", batch_size=8, num_cpus=0.5, id_column="id")
    rows = ds.take_all()
    want = {}
    for model in models.values():
        want.update(plain_outputs(model, {**cols, "x": cols["data"]}))
    assert_rows_match(rows, cols, want)


def test_killed_worker_loses_and_duplicates_no_row(ray_local, tmp_path):
    """The actor dies (os._exit) once, on the batch holding id 137; Ray restarts it and
    retries the task: every id comes out exactly once, with the plain Session's outputs."""
    marker = str(tmp_path / "killed")

    class DiesOnce(OnertPredictor):
        def __call__(self, batch):
            if 137 in batch["id"] and not os.path.exists(marker):
                open(marker, "w").close()
                os._exit(1)
            return super().__call__(batch)

    model = add_mul_model()
    cols = columns(model, 80)
    ds = ray.data.from_items([{k: v[i] for k, v in cols.items()} for i in range(80)],
                             override_num_blocks=8)
    kwargs = {"model": model, "backends": "cpu", "config": None, "batch_size": 8,
              "id_column": "id"}
    out = ds.map_batches(DiesOnce, fn_constructor_kwargs=kwargs, batch_size=8, num_cpus=1,
                         compute=ray.data.ActorPoolStrategy(size=2),
                         max_restarts=2, max_task_retries=2)
    rows = out.take_all()
    assert os.path.exists(marker), "the worker was not killed"
    assert_rows_match(rows, cols, plain_outputs(model, cols))


def test_malformed_row_error_names_its_id_and_the_expected_shape(ray_local):
    model = add_mul_model()
    items = [{"id": i, "a": np.zeros(5 if i == 37 else 4, np.float32),
              "b": np.zeros(4, np.float32)} for i in range(40)]
    with pytest.raises(Exception) as e:
        predict(ray.data.from_items(items), model, backends="cpu", batch_size=16,
                id_column="id").take_all()
    text = str(e.value)
    assert "RowInputError" in text and "(id 37): input 'a' has shape (5,), expected (4,)" in text
