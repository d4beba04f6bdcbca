"""The cpu backend's kernels. Importing the modules fills `kernels`; its keys are the
backend's supported-op list."""
from . import (conv2d, densify, depthwise_conv2d, dynamic_ops, elementwise,  # noqa: F401
               gather_select, matmul, nms_topk, pool_resize, reduce_softmax, shape_ops,
               slice_split)
from .common import kernels

__all__ = ["kernels"]
