"""Custom operators: kernels for a model's CUSTOM ops, looked up by their custom code.

A custom op runs on the cpu backend. Register its kernel before creating the Session::

    def my_op(inputs, options):          # inputs: list of read-only arrays (None: absent)
        return inputs[0] * 2             # an array, or a list/tuple of arrays (one per output)

    onert_py.register_custom_op("MyOp", my_op)

`options` is the op's custom_options (bytes; b"" when the model has none). The returned arrays
must have the output tensors' dtypes; an output whose shape the model fixes must get exactly that
shape, an output whose shape is left open (-1 in its shape_signature, or depending on a
resized/dynamic input) takes the returned shape. Mismatches are ExecutionErrors naming the op.

For full control, register a subclass of :class:`Kernel` (``onert_py.custom_ops.Kernel``): it is
configured with the op (``op.custom_code``, ``op.params.custom_options``), its input and output
tensors, and follows the backend kernel contract (``validate``/``prepare``/``run``; see
``onert_py.core.backend.kernel``). It may define ``supports(op, graph) -> (bool, reason)`` and
``infer_shapes(op, shapes, values) -> [output shapes]`` as static/class methods, or set
``shape_from_run = True`` and size its outputs in ``run``.

``shape_fn(op, shapes, values)``, given to :func:`register_custom_op`, replaces the default
shape policy (the model's declared output shapes, or run-time shapes when those are open); it
raises ``onert_py.core.compiler.shape_inference.Dynamic`` when it cannot tell before run time.

Kernels bundled with onert_py (MediaPipe's ``Convolution2DTransposeBias``, its landmark ops
``Landmarks2TransformMatrix``, ``TransformTensorBilinear``, ``TransformTensor`` and
``TransformLandmarks``, TFLite's ``TFLite_Detection_PostProcess``) are registered by default;
registering the same name overrides them, and :func:`unregister_custom_op` brings the bundled one
back. A Session uses the kernels registered when it compiles.
"""
from __future__ import annotations

import importlib
import threading
from contextlib import contextmanager
from typing import Callable, Iterator, NamedTuple, Union

import numpy as np

from .core.backend.kernel import Kernel

KernelFn = Callable[[list, bytes], Union[np.ndarray, list, tuple]]

__all__ = ["register_custom_op", "unregister_custom_op", "custom_op", "registered_custom_ops",
           "lookup_custom_op", "CustomOp", "Kernel"]


class CustomOp(NamedTuple):
    """One registration: `kernel` is a function or a Kernel subclass."""

    name: str
    kernel: Union[KernelFn, type]
    shape_fn: Callable | None = None
    bundled: bool = False

    @property
    def is_function(self) -> bool:
        return not isinstance(self.kernel, type)

    def infer_shapes(self) -> Callable | None:
        """The shape rule to use: shape_fn, else the Kernel subclass's infer_shapes, else None."""
        if self.shape_fn is not None:
            return self.shape_fn
        if not self.is_function:
            return getattr(self.kernel, "infer_shapes", None)
        return None


_lock = threading.Lock()
_user: dict[str, CustomOp] = {}
_bundled: dict[str, CustomOp] = {}
_bundled_loaded = False


def _check(name: str, kernel, shape_fn) -> None:
    if not isinstance(name, str) or not name:
        raise TypeError(f"a custom op name must be a non-empty string, not {name!r}")
    if isinstance(kernel, type):
        if not issubclass(kernel, Kernel):
            raise TypeError(f"custom op {name!r}: a kernel class must subclass "
                            f"onert_py.custom_ops.Kernel, {kernel.__name__} does not")
    elif not callable(kernel):
        raise TypeError(f"custom op {name!r}: the kernel must be a function "
                        f"fn(inputs, options) or a Kernel subclass, not {type(kernel).__name__}")
    if shape_fn is not None and not callable(shape_fn):
        raise TypeError(f"custom op {name!r}: shape_fn must be callable")


def register_custom_op(name: str, kernel: KernelFn | type, shape_fn: Callable | None = None
                       ) -> None:
    """Run CUSTOM ops with custom code `name` by `kernel` (a function
    ``fn(inputs: list[np.ndarray], options: bytes) -> array | list of arrays``, or a Kernel
    subclass). Replaces an earlier registration of `name`, bundled ones included."""
    _check(name, kernel, shape_fn)
    with _lock:
        _user[name] = CustomOp(name, kernel, shape_fn)


def unregister_custom_op(name: str) -> None:
    """Remove the kernel registered for `name` (a bundled kernel of that name comes back)."""
    with _lock:
        if name not in _user:
            raise KeyError(f"no custom op {name!r} was registered with register_custom_op; "
                           f"registered: {sorted(_user) or 'none'}")
        del _user[name]


@contextmanager
def custom_op(name: str, kernel: KernelFn | type, shape_fn: Callable | None = None
              ) -> Iterator[None]:
    """Register `kernel` for `name` inside a ``with`` block; the previous state comes back after."""
    _check(name, kernel, shape_fn)
    with _lock:
        before = _user.get(name)
        _user[name] = CustomOp(name, kernel, shape_fn)
    try:
        yield
    finally:
        with _lock:
            if before is None:
                _user.pop(name, None)
            else:
                _user[name] = before


def register_bundled(name: str, kernel: type, shape_fn: Callable | None = None) -> None:
    """For onert_py's own kernel modules: a default kernel, overridable by users."""
    _check(name, kernel, shape_fn)
    _bundled[name] = CustomOp(name, kernel, shape_fn, bundled=True)


def _load_bundled() -> None:
    global _bundled_loaded
    if not _bundled_loaded:
        _bundled_loaded = True
        importlib.import_module("onert_py.backends.cpu.ops")   # registers the bundled kernels


def lookup_custom_op(name: str | None) -> CustomOp | None:
    """The registration that runs custom code `name` now, or None."""
    _load_bundled()
    if name is None:
        return None
    with _lock:
        return _user.get(name) or _bundled.get(name)


def registered_custom_ops() -> dict[str, str]:
    """name -> "user" or "bundled", for every custom op that has a kernel now."""
    _load_bundled()
    with _lock:
        out = {n: "bundled" for n in _bundled}
        out.update({n: "user" for n in _user})
    return dict(sorted(out.items()))
