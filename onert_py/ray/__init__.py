"""onert_py on a Ray cluster (the optional extra ``pip install "onert_py[ray]"``).

- ``OnertPredictor``: a callable class for ``Dataset.map_batches``; one Session per actor;
- ``predict(ds, model, ...)``: the same in one line, a lazy ``ray.data.Dataset``;
- ``OnertDeployment`` / ``serve_app(model, ...)``: a Ray Serve deployment answering NumPy and
  JSON requests over HTTP, batching concurrent requests (``serve.batch``);
- ``onert-run batch MODEL INPUT --out preds.parquet``: the command-line batch job (job.py).

docs/ray.md: starting a cluster, running a job on it, and what scales.
"""
from __future__ import annotations

try:
    import ray.data  # noqa: F401
except ImportError as e:        # pragma: no cover - depends on the installation
    raise ModuleNotFoundError(f"onert_py.ray needs Ray Data: pip install \"onert_py[ray]\" "
                              f"({e})", name=e.name) from e

from .data import predict
from .predictor import OnertPredictor, RowInputError

__all__ = ["OnertPredictor", "RowInputError", "predict", "OnertDeployment", "serve_app"]


def __getattr__(name: str):
    """The Serve deployment, imported on first use (Ray Serve is slow to import)."""
    if name in ("OnertDeployment", "serve_app"):
        from . import serve
        return getattr(serve, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
