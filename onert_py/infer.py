"""The `onert` pip package's Python API, on top of onert_py:

    from onert_py import infer
    outputs = infer.session("model.circle", backends="cpu").infer([x])
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .session import Session


@dataclass
class tensorinfo:  # noqa: N801 - the onert package's spelling
    """onert's tensor description: dtype name, rank, dims (-1 for an unknown dimension)."""

    dtype: str = "float32"
    rank: int = 0
    dims: list[int] = field(default_factory=list)


class session:  # noqa: N801 - the onert package's spelling
    """onert.infer.session: `backends` is a ';'-separated string, as in onert."""

    def __init__(self, path: str, backends: str = "cpu") -> None:
        self._session = Session(path, backends=backends)
        self._prepared = False

    def _infos(self, infos, signatures) -> list[tensorinfo]:
        out = []
        for info, sig in zip(infos, signatures):
            dims = list(sig) if sig is not None else list(info.shape)
            out.append(tensorinfo(np.dtype(info.dtype).name, len(dims), dims))
        return out

    def get_inputs_tensorinfo(self) -> list[tensorinfo]:
        g = self._session._graph
        if g is None:                  # closed: the infos kept at close(), no signatures
            return self._infos(self._session.inputs, [None] * len(self._session.inputs))
        sigs = [g.operands[i].shape_signature for i in g.inputs]
        if self._prepared:
            sigs = [None] * len(sigs)
        return self._infos(self._session.inputs, sigs)

    def get_outputs_tensorinfo(self) -> list[tensorinfo]:
        return self._infos(self._session.outputs, [None] * len(self._session.outputs))

    def input_size(self) -> int:
        return len(self._session.inputs)

    def output_size(self) -> int:
        return len(self._session.outputs)

    def infer(self, inputs_array: Sequence[np.ndarray], *, measure: bool = False):
        """Run once; -1 dimensions (and any changed shape) are taken from the arrays given."""
        metrics: dict[str, float] = {}
        if len(inputs_array) != self.input_size():
            raise ValueError(f"Expected {self.input_size()} input(s), but received "
                             f"{len(inputs_array)}.")
        t0 = time.perf_counter()
        for i, (info, a) in enumerate(zip(self._session.inputs, inputs_array)):
            shape = tuple(np.shape(a))
            if shape != tuple(info.shape):
                sig = self._session._graph.operands[self._session._graph.inputs[i]].shape_signature
                if sig is None or any(d != -1 and d != s for d, s in zip(sig, shape)):
                    warnings.warn(f"infer() called with input {i}'s shape={shape}, which differs "
                                  f"from model's expected shape={tuple(info.shape)}. Ensure this "
                                  f"is intended.", UserWarning, stacklevel=2)
                self._session.set_input_shape(i, shape)
        self._prepared = True
        t1 = time.perf_counter()
        outputs = self._session.run(list(inputs_array))
        t2 = time.perf_counter()
        if measure:
            metrics = {"prepare_time_ms": (t1 - t0) * 1e3, "run_time_ms": (t2 - t1) * 1e3}
            return outputs, metrics
        return outputs

    def close(self) -> None:
        self._session.close()
