"""OnertPredictor: one Session that turns batches of rows into batches of rows plus predictions.

A batch is a dict of columns (what Ray Data's ``map_batches`` hands a callable class with
``batch_format="numpy"``): the model's inputs by name, each column holding one *sample* per
row, i.e. the model's input shape without its batch dimension. The predictor adds the batch
dimension, runs the model and returns the same columns plus one per model output, named after
the output, again one sample per row. This is the shape of Ray's own predictors for
onnxruntime and TFLite ("Batch inference with Ray Data": a callable class that creates the
model once in ``__init__`` and maps a dict of NumPy arrays to a dict of NumPy arrays).

How a batch of n rows is run, for a model whose declared batch dimension is B:
- the model is resized once to R rows (``batch_size``, or the largest batch seen) when it
  allows it: every input takes ``(R, *sample)``, compiles, and every output then has R rows
  and its declared per-sample shape; a short batch is padded to R rows (copies of its last
  row, whose outputs are dropped) unless recompiling for it is measured to cost less;
- otherwise it runs in groups of B rows (B = 1: row by row), the last group padded.
With ``tune=True`` (what ``predict()`` asks for) R is measured instead: on the first batch the
predictor times runs of B, 2B, 4B, ... rows, up to the batch, and keeps the size with the least
time per row. On a CPU a convolutional network's time per row grows once a run's activations
leave the caches (MobileNetV2 int8 on acl_neon, 1 thread: 3.5 ms a row one at a time, 3.1 in
runs of 4, 4.7 in runs of 32), while a model dominated by its weights (a transformer's
FULLY_CONNECTED layers) gains from the largest run.
A model whose rows depend on one another (batch statistics, a Reshape that mixes rows while
keeping the shape) is outside this contract; its outputs are still well-shaped but differ
from a plain Session's. This cannot be seen from shapes, so it is not checked.
"""
from __future__ import annotations

import os
import time
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import CompileError, InputError, OnertPyError
from ..session import Session
from ..session_io import as_input_array
from ..tensorinfo import TensorInfo

DATA_COLUMN = "data"      # the column a single-input model also accepts


class RowInputError(InputError):
    """A row of a batch does not fit the model; `row` is its position in the batch and
    `row_id` the value of its id column (None without one)."""

    def __init__(self, message: str, row: int, row_id: Any = None) -> None:
        super().__init__(message)
        self.row = row
        self.row_id = row_id

    def __reduce__(self):      # Ray pickles the error from a worker back to the driver
        return (type(self), (str(self), self.row, self.row_id))


class OnertPredictor:
    """A callable class for ``Dataset.map_batches``: each actor builds one Session.

    >>> ds.map_batches(OnertPredictor, fn_constructor_kwargs={"model": "m.tflite"},
    ...                batch_size=64, compute=ray.data.ActorPoolStrategy(size=2))

    `model`, `backends` and `config` are those of ``onert_py.Session``. `batch_size`: the rows
    per model run to compile for (None: the size of the largest batch seen). `id_column`: a
    column whose value names a row in errors (the row's position in the batch is named
    always). `keep_columns`: the batch's columns returned next to the outputs (None: all).
    `tune`: choose the rows per run by timing run sizes on the first batch (module docstring).
    """

    def __init__(self, model: str | os.PathLike | bytes,
                 backends: str | Sequence[str] | None = None,
                 config: str | os.PathLike | Mapping[str, Any] | None = None, *,
                 batch_size: int | None = None, id_column: str | None = None,
                 keep_columns: Sequence[str] | None = None, tune: bool = False) -> None:
        if batch_size is not None and batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {batch_size}")
        self.session = Session(model, backends=backends, config=config)
        self.id_column = id_column
        self.keep_columns = None if keep_columns is None else list(keep_columns)
        self.inputs = self.session.inputs
        self.outputs = self.session.outputs
        self.model_batch = _model_batch(self.inputs, self.outputs)
        self.rows_per_run = self.model_batch     # the batch the session is compiled for now
        self.resizable: bool | None = None         # None: not tried yet
        self.target_rows = batch_size              # rows per run aimed for (when resizable)
        self.seconds_per_row: float | None = None  # measured, to choose padding or recompiling
        self.seconds_per_compile = self.session.timings["compile"]
        self.tune = tune
        self.tuning: dict[int, float] | None = None   # rows per run -> seconds per row, once tuned
        if batch_size is not None:
            self._try_resize(batch_size)

    # ---- the Ray Data interface ------------------------------------------------------
    def __call__(self, batch: Mapping[str, Any]) -> dict[str, Any]:
        """The batch's columns plus one column per model output (a row per input row)."""
        n = _num_rows(batch)
        ids = batch.get(self.id_column) if self.id_column else None
        arrays = [self.column(batch, info, ids) for info in self.inputs]
        outs = self.predict_arrays(arrays, n)
        result = dict(batch) if self.keep_columns is None else {
            k: batch[k] for k in self.keep_columns}
        for info, out in zip(self.outputs, outs):
            if info.name in result:
                raise InputError(f"the model's output {info.name!r} would overwrite the batch's "
                                 f"column of that name; the batch has columns {sorted(result)}")
            result[info.name] = out
        return result

    # ---- rows in -----------------------------------------------------------------------
    def column(self, batch: Mapping[str, Any], info: TensorInfo, ids: Any = None) -> np.ndarray:
        """Input `info`'s column of `batch` as one array of (rows, *sample) in the model's
        dtype; a RowInputError naming the first row that does not fit."""
        col = self.column_value(batch, info)
        sample = tuple(info.shape[1:])
        if isinstance(col, np.ndarray) and col.dtype != object and col.shape[1:] == sample:
            return as_input_array(col, info.dtype, f"the column of input {info.name!r}")
        rows = [self.row(value, info, k, ids) for k, value in enumerate(col)]
        return np.stack(rows) if rows else np.empty((0, *sample), info.dtype)

    def column_value(self, batch: Mapping[str, Any], info: TensorInfo) -> Any:
        """The value named after input `info` (or 'data', for a single-input model)."""
        if info.name in batch:
            return batch[info.name]
        if len(self.inputs) == 1 and DATA_COLUMN in batch:
            return batch[DATA_COLUMN]
        also = f" (or {DATA_COLUMN!r})" if len(self.inputs) == 1 else ""
        raise InputError(f"nothing named {info.name!r}{also} for the model's input; the names "
                         f"given are {sorted(batch)}, the model's inputs "
                         f"{[i.name for i in self.inputs]}")

    def row(self, value: Any, info: TensorInfo, k: int | None = None,
            ids: Any = None) -> np.ndarray:
        """One sample of input `info` as an array of the model's dtype and per-sample shape.
        If it does not fit: a RowInputError naming row `k` of a batch (and its id), or with
        k None an InputError about "the sample"."""
        sample = tuple(info.shape[1:])
        where = "the sample" if k is None else _row_name(k, ids)
        try:
            a = as_input_array(value, info.dtype, f"input {info.name!r}")
            if a.shape != sample:
                raise InputError(f"input {info.name!r} has shape {a.shape}, expected {sample} "
                                 f"(one sample: the model's {tuple(info.shape)} without its "
                                 f"batch dimension)")
        except InputError as e:
            if k is None:
                raise InputError(f"{where}: {e}") from None
            raise RowInputError(f"{where}: {e}", k, _row_id(k, ids)) from None
        return a

    # ---- running ---------------------------------------------------------------------
    def predict_arrays(self, arrays: list[np.ndarray], n: int) -> list[np.ndarray]:
        """The model's outputs for n rows of stacked inputs (model input order), one output
        row per input row."""
        if self.resizable is None and n:
            self._try_resize(max(n, self.target_rows or 0))
        parts, done = [], 0
        if self.resizable and self.tune and self.tuning is None and n > self.model_batch:
            parts, done = self._tune_rows(arrays, n)
        if self.resizable and self.tuning is None and n > (self.target_rows or 0):
            self.target_rows = n          # no batch_size: aim for the largest batch seen
        step = self.target_rows if self.resizable else self.model_batch
        parts += [self._run_rows(arrays, start, min(n, start + step))
                  for start in range(done, n, step)]
        if not parts:
            return [np.empty((0, *o.shape[1:]), o.dtype) for o in self.outputs]
        return [np.concatenate(p) if len(p) > 1 else p[0] for p in zip(*parts)]

    def _run_rows(self, arrays: list[np.ndarray], start: int, stop: int) -> list[np.ndarray]:
        k = stop - start
        if self.resizable and k != self.rows_per_run and (
                k > self.rows_per_run or self._padding_costs_more(k)):
            before = self.rows_per_run
            try:
                self._resize(k)
            except (CompileError, InputError):     # the model takes some sizes only
                self._resize(before)
        rows = self.rows_per_run
        if k > rows:
            parts = [self._run_rows(arrays, s, min(stop, s + rows))
                     for s in range(start, stop, rows)]
            return [np.concatenate(p) for p in zip(*parts)]
        chunk = [a[start:stop] for a in arrays]
        if k < rows:                       # pad with copies of the last row
            chunk = [np.concatenate([c, np.repeat(c[-1:], rows - k, axis=0)]) for c in chunk]
        t0 = time.perf_counter()
        outs = self.session.run(chunk)
        self.seconds_per_row = (time.perf_counter() - t0) / rows
        for info, o in zip(self.outputs, outs):
            if o.ndim == 0 or o.shape[0] != rows:
                raise OnertPyError(f"output {info.name!r} has shape {o.shape} for a run of "
                                   f"{rows} rows; its first dimension is not the batch, so it "
                                   f"cannot be split into rows")
        return [o[:k] for o in outs]

    def _tune_rows(self, arrays: list[np.ndarray], n: int) -> tuple[list[list[np.ndarray]], int]:
        """Time runs of B, 2B, 4B, ... rows (B the model's batch, at most n and the target
        rows) on the batch's own rows, keep the size with the least time per row (the best of
        two timed runs each, after an untimed one) and compile for it. Stops early once a size
        is 25% slower per row than the best. Returns the outputs of the rows it ran, and how
        many rows that is (each size runs the batch's next rows, so no run is wasted)."""
        limit = min(n, self.target_rows or n)
        sizes, k = [], self.model_batch
        while k <= limit:
            sizes.append(k)
            k *= 2
        if sizes[-1] != limit:
            sizes.append(limit)
        self.tuning = {}
        parts, done = [], 0
        for k in sizes:
            try:
                self._resize(k)
            except (CompileError, InputError):     # the model takes some sizes only
                break
            start = done if done + k <= n else 0     # the next k rows, or rows already run
            chunk = [a[start:start + k] for a in arrays]
            times = []
            for rep in range(3):
                t0 = time.perf_counter()
                outs = self.session.run(chunk)
                times.append(time.perf_counter() - t0)
                if rep == 0 and start == done:
                    parts.append([o[:k] for o in outs])
                    done += k
            self.tuning[k] = min(times[1:]) / k
            if self.tuning[k] > 1.25 * min(self.tuning.values()):
                break
        best = min(self.tuning, key=self.tuning.get)
        self._resize(best)
        self.target_rows = best
        self.seconds_per_row = self.tuning[best]
        return parts, done

    def _padding_costs_more(self, k: int) -> bool:
        """Whether running k rows padded to the compiled size costs more than compiling for
        k rows and back (both measured on this actor)."""
        if self.seconds_per_row is None:
            return False
        return (self.rows_per_run - k) * self.seconds_per_row > 2 * self.seconds_per_compile

    # ---- resizing ----------------------------------------------------------------------
    def _try_resize(self, rows: int) -> None:
        """Compile for `rows` rows per run if the model allows it; remember whether it did
        (no more rows than the model's own batch: nothing to try yet)."""
        if rows <= self.model_batch:
            return
        try:
            self._resize(rows)
            self.resizable = True
            self.target_rows = rows
        except (CompileError, InputError):
            self._resize(self.model_batch)
            self.resizable = False

    def _resize(self, rows: int) -> None:
        """Every input to (rows, *sample); InputError if the outputs then are not (rows,
        *their declared sample)."""
        t0 = time.perf_counter()
        for pos, info in enumerate(self.inputs):
            self.session.set_input_shape(pos, (rows, *info.shape[1:]))
        self.rows_per_run = rows
        self.seconds_per_compile = time.perf_counter() - t0
        for declared, now in zip(self.outputs, self.session.outputs):
            if tuple(now.shape) != (rows, *declared.shape[1:]):
                raise InputError(f"resized to {rows} rows, output {declared.name!r} has shape "
                                 f"{tuple(now.shape)}, not ({rows}, *{tuple(declared.shape[1:])})")


def _model_batch(inputs: list[TensorInfo], outputs: list[TensorInfo]) -> int:
    """The batch dimension that every input and output of the model starts with."""
    firsts = {info.shape[0] if len(info.shape) else None for info in (*inputs, *outputs)}
    if len(firsts) != 1 or None in firsts:
        shapes = {i.name: tuple(i.shape) for i in (*inputs, *outputs)}
        raise OnertPyError(f"every input and output must start with the same batch dimension "
                           f"for rows to be samples; the model's shapes are {shapes}")
    return firsts.pop()


def _num_rows(batch: Mapping[str, Any]) -> int:
    lengths = {len(col) for col in batch.values()}
    if len(lengths) > 1:
        raise InputError(f"the batch's columns have different lengths: "
                         f"{ {k: len(v) for k, v in batch.items()} }")
    return lengths.pop() if lengths else 0


def _row_id(k: int, ids: Any) -> Any:
    if ids is None:
        return None
    value = ids[k]
    return value.item() if isinstance(value, np.generic) else value


def _row_name(k: int, ids: Any) -> str:
    return f"row {k} of the batch" + ("" if ids is None else f" (id {_row_id(k, ids)!r})")
