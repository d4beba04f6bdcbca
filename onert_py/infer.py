"""The `onert` pip package's Python API (onert 0.1.0, `onert.infer.session`), on top of onert_py:

    from onert_py import infer
    sess = infer.session("model.circle", backends="cpu")
    outputs = sess.infer([x])
    outputs, metrics = sess.infer([x], measure=True)

What follows onert's session (runtime/onert/api/python/onert/infer/session.py in Samsung/ONE):
- `get_inputs_tensorinfo()` / `get_outputs_tensorinfo()` give `tensorinfo`s (dtype name, rank,
  dims); the inputs' -1 dims stay -1 until the first `infer`, which fixes them from the shapes
  of the arrays it is given (onert calls set_input_tensorinfo with them, then prepares).
- `infer(xs, measure=True)` returns `(outputs, metrics)`, metrics in milliseconds:
  `prepare_time_ms` (fixing the -1 dims and compiling for them; 0.0 on later calls, where
  onert's session leaves the key out), `input_time_ms` (converting the arrays to the model's
  dtypes and resizing the session where their shapes changed), `run_time_ms` (Session.run:
  binding, executing, the output arrays) and `output_time_ms` (handing the outputs over).
- A wrong input count is a ValueError; so is a wrong shape (InputError, a ValueError: a rank
  the model does not have, a negative size, sizes that the model's -1 dims do not leave free
  and that it cannot be compiled for). Where onert raises its OnertError (the model cannot be
  loaded or compiled, inputs cannot be bound, a run fails), this raises OnertError, which is
  also the onert_py error it stands for (ModelLoadError, CompileError, ...).
- Arrays of another dtype are converted to the model's (onert's set_inputs does the same).

Deviations: a first input whose static (not -1) dims differ from the model's resizes the
session to the array's shape, with onert's UserWarning (onert 0.1.0 drops such a dim and its
prepare fails); the model compiles when the session is created, so compile errors come from
`session(...)`, not from the first `infer`; tensorinfo has no rank limit (onert's has 6).
"""
from __future__ import annotations

import time
import warnings
from contextlib import contextmanager
from typing import Iterator, Sequence

import numpy as np

from .errors import CompileError, InputError, OnertError, OnertPyError, as_onert_error
from .session import Session
from .tensorinfo import tensorinfo

__all__ = ["session", "tensorinfo", "OnertError"]


@contextmanager
def _onert_errors() -> Iterator[None]:
    """onert_py errors as onert raises them: ValueErrors (InputError, ConfigError) as they are,
    every other one as an OnertError (still an instance of its own class)."""
    try:
        yield
    except OnertPyError as e:
        if isinstance(e, ValueError):
            raise
        raise as_onert_error(e) from e


@contextmanager
def _timed(metrics: dict[str, float], key: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        metrics[key] = (time.perf_counter() - start) * 1e3


class session:  # noqa: N801 - the onert package's spelling
    """onert.infer.session: `backends` is a ';'-separated string of backend ids, as in onert.
    `inputs` and `outputs`: the arrays the last `infer` bound and gave back (onert's
    BaseSession keeps them too)."""

    def __init__(self, path: str, backends: str = "cpu") -> None:
        with _onert_errors():
            self._session = Session(path, backends=backends)
        self._prepared = False
        self._model_dims = [tuple(t.dims) for t in self.get_inputs_tensorinfo()]   # -1: free
        self.inputs: list[np.ndarray] = []
        self.outputs: list[np.ndarray] = []

    @staticmethod
    def _infos(infos, signatures) -> list[tensorinfo]:
        return [tensorinfo(np.dtype(info.dtype).name,
                           dims=list(sig) if sig is not None else list(info.shape))
                for info, sig in zip(infos, signatures)]

    def get_inputs_tensorinfo(self) -> list[tensorinfo]:
        """One tensorinfo per input: the model's -1 dims until the first infer fixes them, the
        shapes the session runs with afterwards."""
        with _onert_errors():
            infos = self._session.inputs
            g = self._session._graph
            if g is None or self._prepared:     # closed: the infos kept at close()
                return self._infos(infos, [None] * len(infos))
            return self._infos(infos, [g.operands[i].shape_signature for i in g.inputs])

    def get_outputs_tensorinfo(self) -> list[tensorinfo]:
        with _onert_errors():
            infos = self._session.outputs
            return self._infos(infos, [None] * len(infos))

    def input_size(self) -> int:
        return len(self._session.inputs)

    def output_size(self) -> int:
        return len(self._session.outputs)

    def infer(self, inputs_array: Sequence[np.ndarray], *, measure: bool = False
              ) -> list[np.ndarray] | tuple[list[np.ndarray], dict[str, float]]:
        """Run once on `inputs_array` (one array per model input, in order); the outputs, and
        with `measure` the metrics (module doc)."""
        metrics = {"prepare_time_ms": 0.0}
        expected = self.input_size()
        if len(inputs_array) != expected:
            raise ValueError(f"Expected {expected} input(s), but received "
                             f"{len(inputs_array)}.")
        with _onert_errors():
            if not self._prepared:
                with _timed(metrics, "prepare_time_ms"):
                    self._fix_dims(inputs_array)
                    self._prepared = True
            with _timed(metrics, "input_time_ms"):
                arrays = self._bind(inputs_array)
            with _timed(metrics, "run_time_ms"):
                outputs = self._session.run(arrays)
            with _timed(metrics, "output_time_ms"):
                self.inputs, self.outputs = arrays, list(outputs)
        return (self.outputs, metrics) if measure else self.outputs

    def _fix_dims(self, inputs_array: Sequence[np.ndarray]) -> None:
        """The first infer: each input's -1 dims from its array's shape (a static dim that
        differs gets the array's size too, with onert's warning), the session resized."""
        current = self._session.inputs
        for pos, (info, a) in enumerate(zip(self.get_inputs_tensorinfo(), inputs_array)):
            shape = tuple(np.shape(a))
            if any(d not in (-1, s) for d, s in zip(info.dims, shape)):
                warnings.warn(f"infer() called with input {pos}'s shape={shape}, which differs "
                              f"from model's expected shape={tuple(info.dims)}. Ensure this is "
                              f"intended.", UserWarning, stacklevel=3)
            self._resize(pos, shape, current[pos].shape)

    def _bind(self, inputs_array: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The arrays in the model's dtypes (converted where needed, never in place), the
        session resized to any shape that changed since the last call."""
        arrays = []
        for pos, (info, a) in enumerate(zip(self._session.inputs, inputs_array)):
            try:
                a = np.asarray(a, dtype=info.dtype)
            except (TypeError, ValueError) as e:
                raise InputError(f"input {pos} ({info.name!r}) cannot be converted to "
                                 f"{info.dtype}: {e}") from e
            self._resize(pos, a.shape, info.shape)
            arrays.append(a)
        return arrays

    def _resize(self, pos: int, shape: tuple[int, ...], current: tuple[int, ...]) -> None:
        """Input `pos` resized to `shape`. A shape that the model's -1 dims do not allow and that
        it cannot be compiled for is a wrong shape: InputError (a ValueError)."""
        if tuple(shape) == tuple(current):
            return
        try:
            self._session.set_input_shape(pos, shape)
        except CompileError as e:
            model = self._model_dims[pos]
            if len(model) == len(shape) and all(d in (-1, s) for d, s in zip(model, shape)):
                raise
            raise InputError(f"input {pos}: shape {tuple(shape)} does not fit the model's "
                             f"{model}, and the model cannot be compiled for it: {e}") from e

    def close(self) -> None:
        self._session.close()
