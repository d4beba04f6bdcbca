"""predict(): a Ray Data transform that runs a model over every row of a Dataset."""
from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

import ray.data

from ..config import load_yaml
from ..errors import InputError
from .predictor import OnertPredictor


def predict(ds: ray.data.Dataset, model: str | os.PathLike | bytes, *,
            backends: str | Sequence[str] | None = None,
            config: str | os.PathLike | Mapping[str, Any] | None = None,
            batch_size: int = 64, concurrency: int = 1, num_cpus: float = 1,
            id_column: str | None = None, keep_columns: Sequence[str] | None = None,
            tune: bool = True, **map_batches_kwargs: Any) -> ray.data.Dataset:
    """`ds` with one column per model output added to every row (OnertPredictor on a pool
    of `concurrency` actors, `num_cpus` each). Lazy, like every Ray Data transform.

    The model file and a YAML config are read here, on the driver, and travel with the job,
    so the workers of a cluster need no copy of them (an nnpackage directory is passed as its
    path). The Session's ``num_threads`` defaults to `num_cpus` (one kernel thread per
    CPU Ray gives the actor) unless the config or the ``NUM_THREADS`` variable sets it.
    `id_column` names rows in errors; `keep_columns`: the input columns kept next to the
    outputs (None: all). `tune`: each actor times run sizes of up to `batch_size` rows on its
    first batch and keeps the fastest per row (OnertPredictor); False runs `batch_size` rows
    per run. Other keyword arguments go to ``Dataset.map_batches`` (e.g.
    ``max_restarts``).
    """
    if concurrency < 1:
        raise InputError(f"concurrency must be at least 1, got {concurrency}")
    kwargs = predictor_kwargs(model, backends, config, num_cpus)
    kwargs.update(batch_size=batch_size, id_column=id_column, keep_columns=keep_columns,
                  tune=tune)
    return ds.map_batches(OnertPredictor, fn_constructor_kwargs=kwargs, batch_size=batch_size,
                          batch_format="numpy", num_cpus=num_cpus,
                          compute=ray.data.ActorPoolStrategy(size=concurrency),
                          **map_batches_kwargs)


def predictor_kwargs(model: str | os.PathLike | bytes, backends: str | Sequence[str] | None,
                     config: str | os.PathLike | Mapping[str, Any] | None,
                     num_cpus: float) -> dict[str, Any]:
    """OnertPredictor's arguments, made to travel: a model file as its bytes, a YAML config
    as its dict, and num_threads set to the actor's CPUs where nothing sets it."""
    if not isinstance(model, bytes) and os.path.isfile(model):
        with open(model, "rb") as f:
            model = f.read()
    if config is not None and not isinstance(config, Mapping):
        config = load_yaml(os.fspath(config))
    config = dict(config or {})
    if "num_threads" not in config and "NUM_THREADS" not in os.environ:
        config["num_threads"] = max(1, int(num_cpus))
    return {"model": model, "backends": backends, "config": config}
