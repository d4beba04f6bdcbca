"""The compiler: from an ir.Model and a Config to executors per subgraph."""
from .backend_manager import BackendManager, manager
from .compiler import CompiledSubgraph, Compiler
from .lowering import LoweredGraph, lower
from .scheduler import Assignment, Rules, assign
from .shape_inference import infer_shapes

__all__ = ["BackendManager", "manager", "CompiledSubgraph", "Compiler", "LoweredGraph", "lower",
           "Assignment", "Rules", "assign", "infer_shapes"]
