"""The native runtime (module `_native`, built from core/exec/csrc): tensor slots and segments.

A kernel whose computation is native binds it once, in `Kernel.bind()` after prepare(), to
its tensors' *slots*: `slot_of(tensor)` is a small native record of the tensor's current
buffer, created on first use and updated by HostTensor.set_buffer whenever the buffer changes
(a user's array bound for a run, a run-time resize). The kernel's `native_step` then runs
without any argument; the executors chain the native steps of consecutive ops into a
`Segment` that runs them in one call with the GIL released (onert's executors likewise call
each backend's prepared function objects in a loop, with no per-run argument marshalling).

Without a C++ compiler `_native` is not built: `available()` is False, no kernel binds a
step, and every op runs through its Python `run()` as before.
"""
from __future__ import annotations

try:
    from . import _native
except ImportError:            # not built (no C++ compiler at install time)
    _native = None


def available() -> bool:
    return _native is not None


def slot_of(tensor):
    """The native slot of a host tensor (created on first use), following its buffer."""
    slot = tensor._slot
    if slot is None:
        slot = tensor._slot = _native.slot(tensor._buffer)
    return slot


# set_slot(slot, array): point a slot at another array (or None); HostTensor.set_buffer calls
# it on every rebind, so it is the native function itself, with no Python frame around it
set_slot = getattr(_native, "set_slot", None)


def run_step(step) -> None:
    """Run one native step now (RuntimeError with the step's message if it fails)."""
    _native.run_step(step)


def copy_step(src, dst, nbytes: int):
    """A step copying `nbytes` from tensor src's buffer to tensor dst's."""
    return _native.copy_step(slot_of(src), slot_of(dst), int(nbytes))


def segment(steps: list):
    """A Segment running `steps` (native step capsules) in order in one native call."""
    return _native.Segment(list(steps))
