"""onert_py: a Python inference runtime for TFLite and Circle models, in onert's shape."""
from __future__ import annotations

from . import errors
from .errors import (BackendNotAvailableError, CompileError, ConfigError, ExecutionError,
                     InputError, ModelLoadError, OnertError, OnertPyError, SessionClosedError,
                     UnsupportedOperationError)
from .session import Session
from .custom_ops import register_custom_op, unregister_custom_op  # noqa: F401
from .tensorinfo import TensorInfo

__version__ = "0.1.0"


def __getattr__(name: str):
    """`Placement` (onert_py.placement) is imported when first asked for: a plain Session
    never needs it (cold start)."""
    if name == "Placement":
        from .placement import Placement
        return Placement
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Session", "TensorInfo", "Placement", "errors", "OnertPyError", "SessionClosedError",
           "ModelLoadError", "ConfigError",
           "BackendNotAvailableError", "CompileError", "UnsupportedOperationError",
           "InputError", "ExecutionError", "OnertError", "register_custom_op",
           "unregister_custom_op", "__version__"]
