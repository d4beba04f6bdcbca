"""A Ray Serve deployment that runs one model for online requests, batching concurrent ones.

One request is one sample of every model input (the per-sample shape: the model's input
without its batch dimension), sent as
- JSON: ``{"inputs": {"<input name>": nested list, ...}}`` (a bare ``{"<input name>": ...}``
  works too; a single-input model also takes the name ``"data"``), answered with
  ``{"outputs": {"<output name>": nested list, ...}}``;
- NumPy: the bytes of an ``.npy`` file (a single-input model) or of an ``.npz`` archive whose
  arrays are named after the inputs, answered with an ``.npz`` of the outputs by name.
A request that does not fit the model gets status 400 and the reason; it does not fail the
other requests of its batch. Each response carries ``X-Onert-Batch-Rows``: how many requests
ran in its model run.

Concurrent requests are gathered by ``serve.batch`` (up to `max_batch_size`, waiting at most
`batch_wait_timeout_s` for more) and run as one batch by an OnertPredictor, as Ray Serve's
guide on dynamic request batching describes. Replicas, CPUs per replica and backends are the
deployment's options: ``serve_app(model, backends="cpu", num_replicas=2)``. Python callers
can use the deployment handle with a dict of input name -> array (one sample) and get a dict
of output name -> array.
"""
from __future__ import annotations

import io
import json
import os
from typing import Any, Mapping, Sequence

import numpy as np
from ray import serve
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..errors import InputError
from .data import predictor_kwargs
from .predictor import DATA_COLUMN, OnertPredictor

NPY_MAGIC, ZIP_MAGIC = b"\x93NUMPY", b"PK"
BATCH_HEADER = "X-Onert-Batch-Rows"


@serve.deployment(ray_actor_options={"num_cpus": 1})
class OnertDeployment:
    """One Session per replica, answering HTTP requests (JSON or NumPy) and handle calls."""

    def __init__(self, model: str | os.PathLike | bytes,
                 backends: str | Sequence[str] | None = None,
                 config: str | os.PathLike | Mapping[str, Any] | None = None, *,
                 max_batch_size: int = 16, batch_wait_timeout_s: float = 0.01) -> None:
        self.predictor = OnertPredictor(model, backends=backends, config=config,
                                        batch_size=max_batch_size)
        self.run_batch.set_max_batch_size(max_batch_size)
        self.run_batch.set_batch_wait_timeout_s(batch_wait_timeout_s)

    async def __call__(self, request: Request | Mapping[str, Any]) -> Any:
        if not isinstance(request, Request):           # a DeploymentHandle call
            outputs, _ = await self.run_batch(self.sample(request))
            return outputs
        body = await request.body()
        as_numpy = body.startswith((NPY_MAGIC, ZIP_MAGIC))
        try:
            sample = (self.sample(self.decode_numpy(body)) if as_numpy
                      else self.sample(self.decode_json(body), from_json=True))
        except InputError as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        outputs, rows = await self.run_batch(sample)
        headers = {BATCH_HEADER: str(rows)}
        if as_numpy:
            buf = io.BytesIO()
            np.savez(buf, **outputs)
            return Response(buf.getvalue(), media_type="application/x-npz", headers=headers)
        return JSONResponse({"outputs": {k: v.tolist() for k, v in outputs.items()}},
                            headers=headers)

    @serve.batch(max_batch_size=16, batch_wait_timeout_s=0.01)
    async def run_batch(self, samples: list[list[np.ndarray]]) -> list[tuple[dict, int]]:
        """Requests gathered by serve.batch, run as one batch: per request, its outputs and
        the number of requests in the batch."""
        columns = [np.stack(col) for col in zip(*samples)]
        outs = self.predictor.predict_arrays(columns, len(samples))
        names = [info.name for info in self.predictor.outputs]
        return [({name: out[k] for name, out in zip(names, outs)}, len(samples))
                for k in range(len(samples))]

    # ---- requests ----------------------------------------------------------------------
    def sample(self, values: Mapping[str, Any], from_json: bool = False) -> list[np.ndarray]:
        """One request's inputs, checked one by one, in model input order. JSON has one kind
        of number: from JSON, integers are taken as floats for a float input."""
        p = self.predictor
        if not isinstance(values, Mapping):
            raise InputError(f"a request is a mapping of input name -> sample, not "
                             f"{type(values).__name__}; the model's inputs are "
                             f"{[i.name for i in p.inputs]}")
        out = []
        for info in p.inputs:
            value = p.column_value(values, info)
            if from_json and info.dtype.kind == "f":
                try:
                    value = np.asarray(value, dtype=np.float64).tolist()
                except (TypeError, ValueError) as e:
                    raise InputError(f"input {info.name!r}: not an array of numbers ({e})") \
                        from None
            out.append(p.row(value, info))
        return out

    def decode_json(self, body: bytes) -> Any:
        try:
            data = json.loads(body)
        except ValueError as e:
            raise InputError(f"the request is neither NumPy (.npy/.npz) nor valid JSON: {e}") \
                from None
        if isinstance(data, dict) and isinstance(data.get("inputs"), dict):
            return data["inputs"]
        return data

    def decode_numpy(self, body: bytes) -> dict[str, np.ndarray]:
        try:
            loaded = np.load(io.BytesIO(body), allow_pickle=False)
        except ValueError as e:
            raise InputError(f"the request is not a readable .npy/.npz file: {e}") from None
        if isinstance(loaded, np.ndarray):
            return {DATA_COLUMN: loaded}
        with loaded:
            return {k: loaded[k] for k in loaded.files}


def serve_app(model: str | os.PathLike | bytes, *, backends: str | Sequence[str] | None = None,
              config: str | os.PathLike | Mapping[str, Any] | None = None,
              num_replicas: int = 1, num_cpus: float = 1, max_batch_size: int = 16,
              batch_wait_timeout_s: float = 0.01) -> serve.Application:
    """The OnertDeployment application for ``serve.run``: `num_replicas` replicas of
    `num_cpus` CPUs (the Session's num_threads, unless the config sets it). The model file
    and config are read here and travel with the application."""
    kwargs = predictor_kwargs(model, backends, config, num_cpus)
    return OnertDeployment.options(
        num_replicas=num_replicas, ray_actor_options={"num_cpus": num_cpus},
        max_ongoing_requests=max(2 * max_batch_size, 8),
    ).bind(**kwargs, max_batch_size=max_batch_size, batch_wait_timeout_s=batch_wait_timeout_s)
