"""acl_cl kernels: importing the modules registers them in `kernels`, whose registrations are the
backend's supported-op list."""
from __future__ import annotations

from . import (  # noqa: F401
    arg_min_max, batch_matmul, conv2d, data_movement, depthwise_conv2d, elementwise,
    fully_connected, movement, norm, pool2d, quant_binary, quant_move, quant_pool2d,
    quant_reduce, quant_softmax, recurrent, reduce, resize, select, softmax, topk_v2,
    transpose_conv)
from .common import kernels

__all__ = ["kernels"]
