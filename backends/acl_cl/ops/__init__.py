"""acl_cl kernels: the registry whose keys are the backend's supported-op list."""
from __future__ import annotations

from . import conv, data_movement, elementwise, movement, norm, reduce, select
from . import quant_binary, quant_move, quant_reduce, recurrent
from . import batch_matmul, conv2d, depthwise_conv2d, fully_connected, transpose_conv
from .common import kernels

__all__ = ["kernels", "conv", "data_movement", "elementwise", "reduce", "movement", "norm",
           "quant_binary", "quant_move", "quant_reduce", "recurrent", "select",
           "batch_matmul", "conv2d", "depthwise_conv2d", "fully_connected", "transpose_conv"]
