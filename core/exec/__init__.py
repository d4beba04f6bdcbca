"""Executors that run compiled subgraphs."""
from .executor import LinearExecutor, Step

EXECUTORS = {"Linear": LinearExecutor}

__all__ = ["LinearExecutor", "Step", "EXECUTORS"]
