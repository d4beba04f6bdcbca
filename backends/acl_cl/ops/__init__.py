"""acl_cl kernels: the registry whose keys are the backend's supported-op list."""
from __future__ import annotations

from . import (arg_min_max, conv, data_movement, elementwise, movement, norm, pool2d, quant_fc,
               reduce, resize, select, softmax, topk_v2)
from . import quant_binary, quant_conv, quant_move, quant_pool2d, quant_reduce, quant_softmax
from . import recurrent
from .common import kernels

__all__ = ["kernels", "arg_min_max", "conv", "data_movement", "elementwise", "reduce",
           "movement", "norm", "pool2d", "quant_fc", "quant_binary", "quant_conv", "quant_move",
           "quant_pool2d", "quant_reduce", "quant_softmax", "recurrent", "resize", "select",
           "softmax", "topk_v2"]
