"""The acl_neon backend's kernels, registered in `kernels` (ops/base.py) by the modules of this
package; its keys are the backend's supported-op list.

The modules are imported on demand, op type by op type (`load`): a session imports only the
modules of the op types it asks acl_neon about, and their native groups load when a kernel's
supports() first needs them. MODULES names, for each IR op type, every module that registers a
kernel for it (tests/backends/acl_neon/test_acl_neon_backend.py checks it against the
registrations): a new kernel module adds its line here. `kernels`, read as an attribute of this
package, is the full registry: every module imported (tests, docs/ops.md).
"""
from __future__ import annotations

import importlib

from ....core.backend import KernelRegistry

#: IR op type -> the modules of this package that register kernels for it (any sub-type, form)
MODULES: dict[str, tuple[str, ...]] = {
    "ArgMinMax": ("arg_min_max",),
    "BatchMatMul": ("batch_matmul",),
    "BatchToSpaceND": ("space_batch",), "SpaceToBatchND": ("space_batch",),
    "BinaryArithmetic": ("eltwise", "int_eltwise", "quant_eltwise"),
    "ClampedBinaryArithmetic": ("eltwise",), "ChannelPaddedAdd": ("eltwise",),
    "Comparison": ("eltwise", "int_eltwise"), "ElementwiseBinary": ("eltwise", "int_eltwise"),
    "PReLU": ("eltwise",), "SquaredDifference": ("eltwise",),
    "ElementwiseActivation": ("eltwise", "quant_eltwise"),
    "ElementwiseUnary": ("eltwise", "int_eltwise", "quant_eltwise"),
    "Concat": ("concat", "quant_concat"), "Pack": ("concat",),
    "Conv2D": ("conv2d",), "Conv2DEpilogue": ("conv_epilogue",),
    "DepthwiseConv2D": ("depthwise_conv2d",), "DepthwiseConv2DEpilogue": ("conv_epilogue",),
    "DepthToSpace": ("space_depth",), "SpaceToDepth": ("space_depth",),
    "FullyConnected": ("fully_connected", "ggml"),
    "GatedConv2D": ("gated_conv2d",),
    "Gather": ("gather", "ggml"), "EmbeddingLookup": ("gather",),
    "HashtableLookup": ("hashtable_lookup",),
    "InstanceNorm": ("norm",), "InvertedResidual": ("inverted_residual",), "L2Normalization": ("norm",),
    "LocalResponseNormalization": ("norm",),
    "LSTM": ("recurrent",), "UnidirectionalSequenceLSTM": ("recurrent",),
    "RNN": ("recurrent",), "UnidirectionalSequenceRNN": ("recurrent",),
    "OneHot": ("one_hot",),
    "Pad": ("pad",), "PadV2": ("pad",),
    "Pool2D": ("pool2d", "quant_pool2d"),
    "Reduce": ("reduce", "quant_reduce"),
    "Reshape": ("reshape",), "Squeeze": ("reshape",), "ExpandDims": ("reshape",),
    "ResizeBilinear": ("resize",),
    "Select": ("select",), "SelectV2": ("select",),
    "Slice": ("slice",), "StridedSlice": ("slice",),
    "Softmax": ("softmax", "quant_softmax"),
    "Split": ("split",), "SplitV": ("split",), "Unpack": ("split",),
    "Transpose": ("transpose",),
    "TransposeConv": ("transpose_conv",),
}


def _families() -> dict[str, tuple[str, ...]]:
    """op type -> its modules and every module sharing an op type with them, transitively,
    sorted: loading them together, in name order, registers each key's kernels in the order
    that importing the whole package gives (lookup tries same-rank kernels in that order)."""
    family = {name: {name} for names in MODULES.values() for name in names}
    for names in MODULES.values():
        merged = set().union(*(family[n] for n in names))
        for n in merged:
            family[n] = merged
    return {t: tuple(sorted(family[names[0]])) for t, names in MODULES.items()}


_FAMILIES: dict[str, tuple[str, ...]] = {}


def load(*op_types: str) -> KernelRegistry:
    """The registry, with the kernels of `op_types` registered (their modules imported once;
    an op type no module lists has no acl_neon kernel)."""
    from .base import kernels
    if not _FAMILIES:
        _FAMILIES.update(_families())
    for op_type in op_types:
        for name in _FAMILIES.get(op_type, ()):
            importlib.import_module(f"{__name__}.{name}")
    return kernels


def load_all() -> KernelRegistry:
    """The registry with every module of the package imported."""
    return load(*MODULES)


def __getattr__(name: str):
    if name == "kernels":
        return load_all()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["MODULES", "load", "load_all", "kernels"]
