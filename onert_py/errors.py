"""Errors raised by onert_py, one class per phase in which a problem shows up."""
from __future__ import annotations


class OnertPyError(Exception):
    """Base class of every error onert_py raises on purpose."""


class ModelLoadError(OnertPyError):
    """The model file (or nnpackage) is missing, corrupt, truncated or inconsistent."""


class ConfigError(OnertPyError, ValueError):
    """A configuration value (argument, YAML file, environment variable) is invalid."""


class BackendNotAvailableError(OnertPyError):
    """None of the requested backends could be loaded; `reasons` maps each id to why."""

    def __init__(self, message: str, reasons: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.reasons = dict(reasons or {})


class CompileError(OnertPyError):
    """The model could not be compiled for the chosen backends."""


class UnsupportedOperationError(CompileError):
    """An operation has no backend able to run it; the message names op, index and backends."""

    def __init__(self, message: str, op_type: str = "", op_index: int = -1,
                 reasons: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.op_type = op_type
        self.op_index = op_index
        self.reasons = dict(reasons or {})


class InputError(OnertPyError, ValueError):
    """The arrays given to `Session.run` do not match the model's inputs."""


class ExecutionError(OnertPyError):
    """A kernel failed while the model ran."""


class SessionClosedError(OnertPyError, RuntimeError):
    """A method of a Session was called after close()."""


class OnertError(OnertPyError, RuntimeError):
    """The `onert` package's OnertError (a RuntimeError there), raised by the onert-compatible
    API (onert_py.infer) where onert's session raises it: the model cannot be loaded or
    compiled, inputs cannot be bound, a run fails. A wrong input count or shape stays a
    ValueError there, as in onert. Each one is also an instance of the onert_py error it
    stands for (`as_onert_error`): `except CompileError` still catches a compile failure."""


_ONERT_KINDS: dict[type, type] = {}     # an onert_py error class -> its OnertError class


def as_onert_error(error: OnertPyError) -> OnertError:
    """`error` as an OnertError of class `Onert<its class name>`, a subclass of both, with its
    message and attributes (`reasons`, `op_index`, ...)."""
    if isinstance(error, OnertError):
        return error
    cls = type(error)
    kind = _ONERT_KINDS.get(cls)
    if kind is None:
        kind = _ONERT_KINDS.setdefault(cls, type(
            f"Onert{cls.__name__}", (OnertError, cls),
            {"__module__": __name__, "__doc__": f"An OnertError that is a {cls.__name__}."}))
    out = kind.__new__(kind, *error.args)
    out.__dict__.update(vars(error))
    return out
