"""Reading and writing input/output tensors for `onert-run`: NumPy ``.npz`` and HDF5 ``.h5``.

HDF5 files use onert's ``onert_run`` layout: a group ``value`` holding one dataset per tensor,
named ``"0"`` .. ``"n-1"`` in model order. ``.npz`` archives use the same keys ``"0"`` ..
``"n-1"``; when loading, the tensors' names are accepted as keys too.
"""
from __future__ import annotations

import os
from typing import Sequence

import numpy as np

H5_GROUP = "value"

__all__ = ["IOFileError", "load_tensors", "dump_tensors", "file_format"]


class IOFileError(Exception):
    """An input or output file cannot be read or written, or does not match the model."""


def file_format(path: str | os.PathLike) -> str:
    """'npz' or 'h5' from the file name's extension."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext == ".npz":
        return "npz"
    if ext in (".h5", ".hdf5"):
        return "h5"
    raise IOFileError(f"{os.fspath(path)}: unknown file type {ext or '(none)'!r}; "
                      f"use .npz or .h5")


def _h5py():
    try:
        import h5py
    except ImportError:
        raise IOFileError("reading or writing .h5 files needs h5py (pip install h5py)") from None
    return h5py


def _read_raw(path: str) -> dict[str, np.ndarray]:
    fmt = file_format(path)
    if not os.path.exists(path):
        raise IOFileError(f"{path}: no such file")
    try:
        if fmt == "npz":
            with np.load(path, allow_pickle=False) as z:
                return {k: np.asarray(z[k]) for k in z.files}
        h5py = _h5py()
        with h5py.File(path, "r") as f:
            if H5_GROUP not in f or not isinstance(f[H5_GROUP], h5py.Group):
                raise IOFileError(f"{path}: no group {H5_GROUP!r} (onert_run's layout: "
                                  f"value/0 .. value/n-1)")
            return {k: np.asarray(ds[()]) for k, ds in f[H5_GROUP].items()
                    if isinstance(ds, h5py.Dataset)}
    except IOFileError:
        raise
    except Exception as e:   # zipfile.BadZipFile, OSError, ValueError from a corrupt file
        raise IOFileError(f"{path}: cannot read ({type(e).__name__}: {e})") from e


def load_tensors(path: str | os.PathLike, infos: Sequence) -> list[np.ndarray]:
    """Arrays for the model's inputs ``infos`` (TensorInfo-like: name, shape, dtype), in order.

    Keys "0".."n-1" or the inputs' names. Shapes and dtypes must match ``infos`` exactly
    (an integer or float array of another width is cast when the values fit the kind).
    """
    path = os.fspath(path)
    raw = _read_raw(path)
    out = []
    for i, info in enumerate(infos):
        key = str(i) if str(i) in raw else (info.name if info.name in raw else None)
        if key is None:
            raise IOFileError(f"{path}: no array for input {i} ({info.name!r}); expected key "
                              f"{str(i)!r} or {info.name!r}, the file has {sorted(raw)}")
        a = raw[key]
        want = np.dtype(info.dtype)
        if a.dtype != want:
            if a.dtype.kind == want.kind or (a.dtype.kind in "iu" and want.kind in "iu"):
                a = a.astype(want)
            else:
                raise IOFileError(f"{path}: input {i} ({info.name!r}) has dtype {a.dtype}, "
                                  f"the model expects {want}")
        if tuple(a.shape) != tuple(info.shape):
            raise IOFileError(f"{path}: input {i} ({info.name!r}) has shape {tuple(a.shape)}, "
                              f"the model expects {tuple(info.shape)} (use --shape-run to "
                              f"resize a dynamic input)")
        out.append(np.ascontiguousarray(a))
    extra = sorted(set(raw) - {str(i) for i in range(len(infos))} - {x.name for x in infos})
    if extra:
        raise IOFileError(f"{path}: unexpected arrays {extra}; the model has {len(infos)} "
                          f"input(s) {[x.name for x in infos]}")
    return out


def dump_tensors(path: str | os.PathLike, arrays: Sequence[np.ndarray]) -> None:
    """Write ``arrays`` under keys "0".."n-1" (in ``value/`` for .h5, onert_run's layout)."""
    path = os.fspath(path)
    fmt = file_format(path)
    try:
        if fmt == "npz":
            with open(path, "wb") as f:   # np.savez would append .npz to other names
                np.savez(f, **{str(i): np.asarray(a) for i, a in enumerate(arrays)})
            return
        h5py = _h5py()
        with h5py.File(path, "w") as f:
            g = f.create_group(H5_GROUP)
            for i, a in enumerate(arrays):
                g.create_dataset(str(i), data=np.asarray(a))
    except IOFileError:
        raise
    except OSError as e:
        raise IOFileError(f"{path}: cannot write ({e.strerror or e})") from e
