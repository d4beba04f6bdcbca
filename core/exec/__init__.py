"""Executors that run compiled subgraphs."""
from .executor import LinearExecutor, Step
from .tracing import Tracer

EXECUTORS = {"Linear": LinearExecutor}

__all__ = ["LinearExecutor", "Step", "Tracer", "EXECUTORS"]
