"""Model loading: .tflite and .circle files, in-memory bytes, and nnpackage directories."""
from __future__ import annotations

import mmap
import os

from ...errors import ModelLoadError
from ..ir import Model
from .flatbuffer_loader import detect_schema, load_flatbuffer
from .nnpackage import read_manifest

__all__ = ["load_model", "detect_schema", "load_flatbuffer"]


def load_model(source: str | os.PathLike | bytes | bytearray | memoryview,
               use_mmap: bool = True) -> Model:
    """Load a model from a path (file or nnpackage dir) or from the flatbuffer's bytes.

    Files are memory-mapped (constant tensors are read-only views of the mapping, not copies);
    with `use_mmap=False` the file is read into memory once instead.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        buf = bytes(source) if not isinstance(source, bytes) else source
        model = load_flatbuffer(buf, "<model bytes>")
        model.keepalive.append(buf)
        return model
    if not isinstance(source, (str, os.PathLike)):
        raise ModelLoadError(f"a model is a path or bytes, not {type(source).__name__}")
    path = os.fspath(source)
    package_config: dict[str, str] = {}
    if os.path.isdir(path):
        path, _, package_config = read_manifest(path)
    if not os.path.exists(path):
        raise ModelLoadError(f"{path}: no such file")
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                raise ModelLoadError(f"{path}: empty file")
            mapped = (mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if use_mmap
                      else f.read())
    except OSError as e:
        raise ModelLoadError(f"{path}: cannot read ({e.strerror or e})") from e
    model = load_flatbuffer(mapped, path)
    model.path = path
    model.package_config = package_config
    model.keepalive.append(mapped)
    return model
