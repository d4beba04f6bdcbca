"""Reference results from the TFLite interpreter (``ai_edge_litert``), for comparing against onert_py."""

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
