"""Executors that run compiled subgraphs.

The executor classes are imported when first used (`executor_class`, or as attributes of
this package): a session on the default Linear executor does not import the DAG executors'
modules (queue, threads), a few ms of a cold start."""
from __future__ import annotations

import importlib

# config `executor` (EXECUTOR) names -> (module of this package, class); onert_py.config takes
# its valid names from here
EXECUTORS = {"Linear": ("executor", "LinearExecutor"),
             "Dataflow": ("dataflow", "DataflowExecutor"),
             "Parallel": ("dataflow", "ParallelExecutor")}
_LAZY = {cls: mod for mod, cls in EXECUTORS.values()} | {"Step": "executor", "Tracer": "tracing"}


def executor_class(name: str) -> type:
    """The executor class of config `executor` name (one of EXECUTORS)."""
    mod, cls = EXECUTORS[name]
    return getattr(importlib.import_module(f"{__name__}.{mod}"), cls)


def __getattr__(name: str):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{mod}"), name)


__all__ = ["LinearExecutor", "DataflowExecutor", "ParallelExecutor", "Step", "Tracer",
           "EXECUTORS", "executor_class"]
