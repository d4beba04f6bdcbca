"""Custom options stored as a FlexBuffer map (TFLite's custom ops, MediaPipe's custom ops):
decoding the map and reading its values, with the ValueErrors that name the op, the key and what
is valid. The bundled custom kernels raise those from their option parsers; their compile-time
check turns them into refusals."""
from __future__ import annotations

import math
from typing import Any

import numpy as np


def read_map(code: str, options: bytes | None) -> dict[str, Any]:
    """The custom options of op `code` decoded as a FlexBuffer map; ValueError when the op has
    none, or they are not a FlexBuffer, or not a map."""
    from flatbuffers import flexbuffers
    if not options:
        raise ValueError(f"{code} needs its custom options (a FlexBuffer map), the op has none")
    try:
        m = flexbuffers.Loads(bytes(options))
    except Exception as e:   # noqa: BLE001  (any decoding failure means malformed bytes)
        raise ValueError(f"{code}: the custom options are not a FlexBuffer: {e}") from None
    if not isinstance(m, dict):
        raise ValueError(f"{code}: the custom options must be a FlexBuffer map, got "
                         f"{type(m).__name__}")
    return m


def require(code: str, m: dict[str, Any], keys: tuple[str, ...]) -> None:
    """ValueError naming every key of `keys` that the map lacks (or holds as null)."""
    missing = [k for k in keys if m.get(k) is None]
    if missing:
        raise ValueError(f"{code}: the custom options lack {', '.join(missing)}")


def as_int(code: str, key: str, value: Any) -> int:
    """`value` as an int32 (an integral float is accepted); ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not value.is_integer()):
        raise ValueError(f"{code}: option {key!r} must be an integer, got {value!r}")
    if not -2**31 <= int(value) < 2**31:
        raise ValueError(f"{code}: option {key!r} = {value} does not fit in int32")
    return int(value)


def as_float(code: str, key: str, value: Any) -> float:
    """`value` as a finite float, rounded to float32 as the C++ kernels keep it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{code}: option {key!r} must be a finite number, got {value!r}")
    return float(np.float32(value))


def as_ints(code: str, key: str, value: Any) -> tuple[int, ...]:
    """`value` (a FlexBuffer vector) as a tuple of int32s; ValueError otherwise."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
        raise ValueError(f"{code}: option {key!r} must be a vector of integers, got {value!r}")
    return tuple(as_int(code, f"{key}[{k}]", v) for k, v in enumerate(value))


__all__ = ["read_map", "require", "as_int", "as_float", "as_ints"]
