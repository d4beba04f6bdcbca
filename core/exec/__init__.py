"""Executors that run compiled subgraphs."""
from .dataflow import DataflowExecutor, ParallelExecutor
from .executor import LinearExecutor, Step
from .tracing import Tracer

# config `executor` (EXECUTOR) names -> classes; onert_py.config takes its valid names from here
EXECUTORS = {"Linear": LinearExecutor, "Dataflow": DataflowExecutor, "Parallel": ParallelExecutor}

__all__ = ["LinearExecutor", "DataflowExecutor", "ParallelExecutor", "Step", "Tracer",
           "EXECUTORS"]
