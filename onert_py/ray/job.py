"""The batch job of ``onert-run batch MODEL INPUT --out preds.parquet``.

INPUT is a ``.npy`` file (a single-input model), a ``.npz`` archive (arrays named after the
model's inputs, or ``"0"`` .. ``"n-1"`` in input order, as onert-run's --load), each with one
row per sample, or a folder of images (read by Ray Data's ``read_images`` on the workers,
resized to the model's input height and width). The predictions are written by the driver
into one Parquet file, in input order: a column ``id`` (the row's index in the file, or the
image's file name) and one column per model output, each row a fixed-size list of the
output's values; a multi-dimensional output keeps its per-row shape in the field's metadata
(``shape``, JSON).

Images become the model's input type: pixels 0..255 map linearly onto [lo, hi]
(``--image-range``; default [0, 1] for a float input, and for a quantized input the real range
its scale and zero point cover), then are quantized with the input's parameters where it is
quantized (TFLite's rounding, halves away from zero); a uint8 input that is not quantized
takes the pixels as they are.

Without ``--ray-address`` a local Ray is started (and stopped at the end); with one, the job
joins that cluster (``auto``, or ``HOST:6379``). The model file and config are read here and
shipped to the workers; an image folder must be readable at the same path from every node.
"""
from __future__ import annotations

import json
import os
import re
import sys
from typing import Any, Iterator, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import ray
import ray.data
from ray.data.extensions import ArrowTensorArray

from ..core.quant.qmath import round_half_away
from ..errors import InputError, OnertPyError
from ..io_files import IOFileError
from ..session import Session
from ..tensorinfo import TensorInfo
from .data import predict

IMAGE_EXTENSIONS = ("png", "jpg", "jpeg", "bmp", "gif", "tif", "tiff", "webp")
ID_COLUMN = "id"
BLOCK_ROWS = 1024            # rows per Ray Data block read from a .npy/.npz file
WRITE_ROWS = 4096            # rows per Parquet row group


def run_job(model: str, source: str, out: str, *, backends: str | Sequence[str] | None = None,
            config: str | Mapping[str, Any] | None = None, batch_size: int = 64,
            workers: int | None = None, num_cpus: float = 1, ray_address: str | None = None,
            image_range: tuple[float, float] | None = None, progress: bool = True) -> int:
    """Predict every row of `source` with `model` on Ray; write `out` (Parquet). Returns the
    number of rows written. `workers`: actors (default: the cluster's CPUs / num_cpus)."""
    if not out.endswith(".parquet"):
        raise InputError(f"--out {out!r}: the predictions are written as Parquet; name the "
                         f"file *.parquet")
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    with Session(model, backends=backends, config=config) as sess:   # fails early, here
        inputs, outputs = sess.inputs, sess.outputs
    started = not ray.is_initialized()
    if started:
        ray.init(address=ray_address, include_dashboard=False, logging_level="WARNING",
                 log_to_driver=False)
    ctx = ray.data.DataContext.get_current()
    saved = (ctx.enable_progress_bars, ctx.execution_options.preserve_order)
    ctx.enable_progress_bars, ctx.execution_options.preserve_order = False, True
    try:
        ds, total = input_dataset(source, inputs, image_range)
        if workers is None:
            workers = max(1, int(ray.cluster_resources().get("CPU", 1) // num_cpus))
        preds = predict(ds, model, backends=backends, config=config, batch_size=batch_size,
                        concurrency=workers, num_cpus=num_cpus, id_column=ID_COLUMN,
                        keep_columns=[ID_COLUMN])
        return write_parquet(preds.iter_batches(batch_size=None, batch_format="numpy"),
                             out, outputs, total, progress)
    finally:
        ctx.enable_progress_bars, ctx.execution_options.preserve_order = saved
        if started:
            ray.shutdown()


# ---- inputs ------------------------------------------------------------------------------
def input_dataset(source: str, inputs: list[TensorInfo],
                  image_range: tuple[float, float] | None) -> tuple[ray.data.Dataset, int]:
    """A Dataset with a column `id` and one per model input; and its number of rows."""
    if os.path.isdir(source):
        return image_dataset(source, inputs, image_range)
    arrays = read_arrays(source, inputs)
    n = len(arrays[0])
    blocks = []
    for start in range(0, n, BLOCK_ROWS):
        stop = min(n, start + BLOCK_ROWS)
        cols = {ID_COLUMN: np.arange(start, stop, dtype=np.int64)}
        cols.update({info.name: ArrowTensorArray.from_numpy(np.ascontiguousarray(a[start:stop]))
                     for info, a in zip(inputs, arrays)})
        blocks.append(pa.table(cols))
    if not blocks:
        raise InputError(f"{source}: no rows")
    return ray.data.from_arrow(blocks), n


def read_arrays(source: str, inputs: list[TensorInfo]) -> list[np.ndarray]:
    """The arrays of a .npy / .npz file in model input order, one row per sample."""
    names = [info.name for info in inputs]
    ext = os.path.splitext(source)[1].lower()
    if not os.path.isfile(source):
        raise IOFileError(f"{source}: no such file or folder")
    try:
        if ext == ".npy":
            if len(inputs) != 1:
                raise IOFileError(f"{source}: a .npy file holds one array, the model has "
                                  f"{len(inputs)} inputs {names}; use a .npz archive")
            arrays = [np.load(source, mmap_mode="r", allow_pickle=False)]
        elif ext == ".npz":
            with np.load(source, allow_pickle=False) as z:
                found = {k: z[k] for k in z.files}
            arrays = _npz_arrays(source, found, names)
        else:
            raise IOFileError(f"{source}: expected a .npy or .npz file, or a folder of images")
    except (ValueError, OSError) as e:
        raise IOFileError(f"{source}: cannot read ({type(e).__name__}: {e})") from e
    lengths = {len(a) if a.ndim else None for a in arrays}
    if len(lengths) != 1 or None in lengths:
        raise IOFileError(f"{source}: every array needs one row per sample, the same number "
                          f"of rows; shapes {[a.shape for a in arrays]}")
    return arrays


def _npz_arrays(source: str, found: dict[str, np.ndarray], names: list[str]) -> list[np.ndarray]:
    if all(n in found for n in names):
        return [found[n] for n in names]
    if all(str(i) in found for i in range(len(names))):
        return [found[str(i)] for i in range(len(names))]
    if len(names) == 1 and len(found) == 1:
        return list(found.values())
    raise IOFileError(f"{source}: arrays {sorted(found)}; expected the model's input names "
                      f"{names} or '0'..'{len(names) - 1}'")


def image_dataset(folder: str, inputs: list[TensorInfo],
                  image_range: tuple[float, float] | None) -> tuple[ray.data.Dataset, int]:
    """The images of `folder` (sorted by name) resized to the model's input, with their
    file names as ids."""
    if len(inputs) != 1 or len(inputs[0].shape) != 4 or inputs[0].shape[3] not in (1, 3, 4):
        raise InputError(f"{folder}: a folder of images needs a model with one input of shape "
                         f"(batch, height, width, 1|3|4 channels); its inputs are "
                         f"{[(i.name, tuple(i.shape)) for i in inputs]}")
    info = inputs[0]
    files = sorted(f for f in os.listdir(folder)
                   if f.rsplit(".", 1)[-1].lower() in IMAGE_EXTENSIONS)
    if not files:
        raise InputError(f"{folder}: no image files ({', '.join(IMAGE_EXTENSIONS)})")
    _, height, width, channels = info.shape
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[channels]
    # reading and converting take no CPU of Ray's account, so that workers on every CPU
    # (the default) leave them room; they are light next to the model
    ds = ray.data.read_images([os.path.join(os.path.abspath(folder), f) for f in files],
                              size=(height, width), mode=mode, include_paths=True, num_cpus=0)
    lo_hi = pixel_range(info, image_range)
    return ds.map_batches(images_to_input, fn_kwargs={"info": info, "lo_hi": lo_hi},
                          batch_format="numpy", num_cpus=0), len(files)


def pixel_range(info: TensorInfo,
                image_range: tuple[float, float] | None) -> tuple[float, float] | None:
    """The real values pixels 0 and 255 stand for (None: the raw pixels, for a plain uint8
    input)."""
    if image_range is not None:
        return image_range
    dt = np.dtype(info.dtype)
    if dt.kind == "f":
        return (0.0, 1.0)
    if info.quantization and dt in (np.int8, np.uint8, np.int16):
        q, ii = info.quantization, np.iinfo(dt)
        scale, zp = float(np.ravel(q["scale"])[0]), int(np.ravel(q["zero_point"])[0])
        return (scale * (ii.min - zp), scale * (ii.max - zp))
    if dt == np.uint8:
        return None
    raise InputError(f"input {info.name!r} is {dt} and not quantized: give --image-range LO,HI")


def images_to_input(batch: dict[str, np.ndarray], info: TensorInfo,
                    lo_hi: tuple[float, float] | None) -> dict[str, np.ndarray]:
    """Ray Data step: the uint8 `image` column -> the model input column; `path` -> id."""
    img = batch["image"]
    if img.ndim == 3:                      # mode "L": (n, h, w)
        img = img[..., None]
    return {ID_COLUMN: np.array([os.path.basename(p) for p in batch["path"]]),
            info.name: pixels_to_input(img, info, lo_hi)}


def pixels_to_input(img: np.ndarray, info: TensorInfo,
                    lo_hi: tuple[float, float] | None) -> np.ndarray:
    """uint8 pixels as the model input's dtype (see the module docstring)."""
    dt = np.dtype(info.dtype)
    if lo_hi is None:
        return img.astype(dt)
    lo, hi = lo_hi
    real = lo + (hi - lo) * (img.astype(np.float32) / np.float32(255))
    if dt.kind == "f":
        return real.astype(dt)
    q, ii = info.quantization, np.iinfo(dt)
    scale, zp = float(np.ravel(q["scale"])[0]), int(np.ravel(q["zero_point"])[0])
    return np.clip(round_half_away(real / scale) + zp, ii.min, ii.max).astype(dt)


# ---- output --------------------------------------------------------------------------------
def arrow_column(values: np.ndarray) -> tuple[pa.Array, dict[bytes, bytes] | None]:
    """A column of one value (or one fixed-size list) per row, and the field metadata that
    keeps a multi-dimensional row's shape."""
    if values.ndim == 1:
        return pa.array(values), None
    per_row = int(np.prod(values.shape[1:]))
    flat = pa.array(np.ascontiguousarray(values).reshape(-1))
    meta = {b"shape": json.dumps(list(values.shape[1:])).encode()} if values.ndim > 2 else None
    return pa.FixedSizeListArray.from_arrays(flat, per_row), meta


def write_parquet(batches: Iterator[dict[str, np.ndarray]], out: str, outputs: list[TensorInfo],
                  total: int, progress: bool) -> int:
    """Write `batches` (id + output columns) into one Parquet file; a progress bar of rows."""
    from tqdm import tqdm

    names = [ID_COLUMN, *(o.name for o in outputs)]
    writer, pending, written = None, [], 0
    tmp = out + ".partial"
    bar = tqdm(total=total, desc="predicting", unit="row", file=sys.stderr,
               disable=not progress)

    def flush() -> None:
        nonlocal writer, pending
        cols = {n: np.concatenate([b[n] for b in pending]) for n in names}
        arrays, fields = [], []
        for n in names:
            arr, meta = arrow_column(cols[n])
            arrays.append(arr)
            fields.append(pa.field(n, arr.type, metadata=meta))
        table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
        if writer is None:
            writer = pq.ParquetWriter(tmp, table.schema)
        writer.write_table(table)
        pending = []

    done = False
    try:
        for batch in batches:
            pending.append(batch)
            rows = len(batch[ID_COLUMN])
            written += rows
            bar.update(rows)
            if sum(len(b[ID_COLUMN]) for b in pending) >= WRITE_ROWS:
                flush()
        if pending:
            flush()
        done = True
    finally:
        bar.close()
        if writer is not None:
            writer.close()
        if not done and os.path.exists(tmp):
            os.remove(tmp)
    if writer is None:
        raise InputError("no rows were predicted")
    os.replace(tmp, out)
    return written


# ---- errors from workers ----------------------------------------------------------------------
_WORKER_ERROR = re.compile(r"^onert_py\.[\w.]*?(\w+Error): (.*)$", re.MULTILINE)


def worker_error(e: BaseException) -> tuple[str, str] | None:
    """(class name, message) of the onert_py error behind a Ray task failure: Ray hands the
    driver the worker's traceback as text, not the exception object."""
    if isinstance(e, OnertPyError):
        return type(e).__name__, str(e)
    found = _WORKER_ERROR.findall(str(e))
    return found[-1] if found else None
