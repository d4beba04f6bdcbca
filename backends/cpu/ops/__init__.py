"""The cpu backend's kernels. Importing the modules fills `kernels`; its keys are the
backend's supported-op list."""
from . import (conv2d, densify, depthwise_conv2d, elementwise, matmul,  # noqa: F401
               pool_resize, reduce_softmax, shape_ops)
from .common import kernels

__all__ = ["kernels"]
