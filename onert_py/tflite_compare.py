"""Running the TFLite interpreter (``ai_edge_litert``) on the same inputs, and comparing.

Used by `onert-run --compare-tflite` and by the test suite as its oracle.
"""
from __future__ import annotations

import os

import numpy as np


def tflite_run(
    model: bytes | str | os.PathLike[str],
    inputs: list[np.ndarray],
    num_threads: int = 1,
    xnnpack: bool = False,
) -> list[np.ndarray]:
    """Run ``model`` (bytes or a path) on ``inputs`` (in model input order); return copies of the
    outputs in model output order.

    Builtin kernels only unless ``xnnpack`` (then the default delegates apply). Inputs whose shape
    differs from the model's are resized before allocation.
    """
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    resolver = OpResolverType.AUTO if xnnpack else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    kwargs: dict = {"model_content": bytes(model)} if isinstance(model, (bytes, bytearray)) else {
        "model_path": os.fspath(model)}
    interp = Interpreter(num_threads=num_threads, experimental_op_resolver_type=resolver, **kwargs)
    details = interp.get_input_details()
    if len(details) != len(inputs):
        raise ValueError(f"model has {len(details)} inputs, got {len(inputs)}")
    arrays = [np.asarray(x) for x in inputs]
    resized = False
    for d, x in zip(details, arrays):
        if tuple(d["shape"]) != x.shape:
            interp.resize_tensor_input(d["index"], list(x.shape))
            resized = True
    interp.allocate_tensors()
    if resized:
        details = interp.get_input_details()
    for d, x in zip(details, arrays):
        interp.set_tensor(d["index"], x.astype(d["dtype"], copy=False))
    interp.invoke()
    return [np.array(interp.get_tensor(d["index"]), copy=True) for d in interp.get_output_details()]


def compare(ours: list[np.ndarray], ref: list[np.ndarray], names: list[str]) -> bool:
    """Print max abs / max relative error per output; False if counts, shapes or dtypes differ."""
    ok = True
    print("\ncomparison with TFLite (builtin kernels); relative error = |ours - tflite| / "
          "max(|tflite|, 1e-6)")
    if len(ours) != len(ref):
        print(f"  output count differs: onert_py {len(ours)}, TFLite {len(ref)}")
        return False
    print(f"  {'#':>2}  {'name':<24} {'shape':<18} {'dtype':<8} {'max abs err':>12} "
          f"{'max rel err':>12}")
    for i, (a, b) in enumerate(zip(ours, ref)):
        name = names[i] if i < len(names) else str(i)
        if a.shape != b.shape or a.dtype != b.dtype:
            print(f"  {i:>2}  {name:<24} MISMATCH: onert_py {a.shape} {a.dtype}, "
                  f"TFLite {b.shape} {b.dtype}")
            ok = False
            continue
        x, y = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(all="ignore"):
            same = (x == y) | (np.isnan(x) & np.isnan(y))
            d = np.where(same, 0.0, np.abs(x - y))
            rel = d / np.maximum(np.abs(y), 1e-6)
        mabs = float(d.max()) if d.size else 0.0
        mrel = float(rel.max()) if rel.size else 0.0
        print(f"  {i:>2}  {name[:24]:<24} {str(a.shape):<18} {str(a.dtype):<8} {mabs:>12.4e} "
              f"{mrel:>12.4e}")
    return ok


# ---------------------------------------------------------------- report
