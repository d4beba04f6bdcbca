"""What Session.run accepts as inputs.

The input rules (docs/robustness.md):
- inputs are a list/tuple in model input order, a dict name -> array, or one ndarray for a
  one-input model;
- an ndarray must have the model's dtype exactly (no silent cast); only a non-native byte
  order of that dtype is accepted, and converted into a private copy;
- anything else (a Python list, scalar, NumPy scalar, memoryview, object with __array__) goes
  through `np.asarray`; where NumPy's dtype is of the same kind as the model's (float64 for a
  float32 input, int64 for int32) it is cast, refusing values the model's dtype cannot hold;
- masked arrays are refused (their masked values are arbitrary);
- the arrays are only read: never written, never kept after run() returns;
- `outputs=` arrays are checked by `check_outputs` and written in place.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from .errors import InputError


def input_list(inputs: Sequence[Any] | Mapping[str, Any] | np.ndarray,
               names: list[str]) -> list[Any]:
    """The user's inputs in model input order (not yet checked one by one)."""
    if isinstance(inputs, Mapping):
        unknown = sorted(set(inputs) - set(names), key=str)
        missing = [n for n in names if n not in inputs]
        if unknown or missing:
            raise InputError(f"inputs by name: unknown {unknown}, missing {missing}; "
                             f"the model's inputs are {names}")
        arrays = [inputs[n] for n in names]
    elif isinstance(inputs, np.ndarray):
        arrays = [inputs]
    elif isinstance(inputs, (list, tuple)):
        arrays = list(inputs)
    else:
        raise InputError(f"inputs must be a list of arrays (model input order) or a dict "
                         f"name -> array, not {type(inputs).__name__}; the model's inputs "
                         f"are {names}")
    if len(arrays) != len(names):
        raise InputError(f"the model has {len(names)} input(s) {names}, got {len(arrays)}")
    return arrays


def as_input_array(a: Any, dtype: np.dtype, what: str) -> np.ndarray:
    """`a` as an ndarray of `dtype`, by the rules above; InputError naming `what` if not."""
    if isinstance(a, np.ma.MaskedArray):
        raise InputError(f"{what}: masked arrays are not accepted (masked values would be read "
                         f"as they are); pass a.filled(value) or a.data")
    if not isinstance(a, np.ndarray):
        try:
            a = np.asarray(a)
        except (ValueError, TypeError, OverflowError) as e:
            raise InputError(f"{what}: {type(a).__name__} cannot be converted to an array of "
                             f"{dtype}: {e}") from e
        if a.dtype != dtype and a.dtype.kind == dtype.kind and a.dtype.kind in "iuf":
            a = _cast_checked(a, dtype, what)
    if a.dtype != dtype and a.dtype.kind == dtype.kind and a.dtype.newbyteorder("=") == dtype:
        a = a.astype(dtype)                 # big-endian (or little) data: a private copy
    if a.dtype != dtype:
        raise InputError(f"{what}: expected dtype {dtype}, got {a.dtype}")
    return a


def _cast_checked(a: np.ndarray, dtype: np.dtype, what: str) -> np.ndarray:
    """A Python-value array cast to the model's dtype of the same kind, if the values fit."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if a.size and (a.min() < info.min or a.max() > info.max):
            raise InputError(f"{what}: values {a.min()}..{a.max()} do not fit {dtype} "
                             f"({info.min}..{info.max})")
        return a.astype(dtype)
    with np.errstate(over="ignore"):
        out = a.astype(dtype)
    if np.count_nonzero(np.isfinite(out)) != np.count_nonzero(np.isfinite(a)):
        raise InputError(f"{what}: values beyond the range of {dtype} "
                         f"(largest {np.finfo(dtype).max})")
    return out


def check_outputs(outputs: Any, tensors: list, inputs: Sequence[np.ndarray]) -> None:
    """The preallocated arrays of run(outputs=...), one per output tensor in `tensors`: each an
    ndarray of the output's dtype and (static) shape, C-contiguous, writeable, sharing no
    memory with an input or another output; InputError naming the output otherwise."""
    if not isinstance(outputs, (list, tuple)) or len(outputs) != len(tensors):
        raise InputError(f"outputs must be a list of {len(tensors)} arrays (one per model "
                         f"output), got {type(outputs).__name__}"
                         + (f" of {len(outputs)}" if isinstance(outputs, (list, tuple))
                            else ""))
    for k, (t, a) in enumerate(zip(tensors, outputs)):
        what = f"output {k} ({t.name!r})"
        if not isinstance(a, np.ndarray):
            raise InputError(f"{what}: expected an ndarray, got {type(a).__name__}")
        if a.dtype != t.dtype:
            raise InputError(f"{what}: expected dtype {t.dtype}, got {a.dtype}")
        if not t.is_dynamic and a.shape != tuple(t.planned_shape):
            raise InputError(f"{what}: expected shape {tuple(t.planned_shape)}, got {a.shape}")
        if not a.flags.c_contiguous or not a.flags.writeable:
            raise InputError(f"{what}: the array must be C-contiguous and writeable")
        if any(np.may_share_memory(a, x) for x in (*inputs, *outputs[:k])):
            raise InputError(f"{what}: the array shares memory with an input or another "
                             f"output")
