"""acl_cl kernels: the registry whose keys are the backend's supported-op list."""
from __future__ import annotations

from . import conv, data_movement, elementwise, movement, norm, quant_fc, reduce, select
from . import quant_binary, quant_conv, quant_move, quant_reduce, recurrent
from .common import kernels

__all__ = ["kernels", "conv", "data_movement", "elementwise", "reduce", "movement", "norm",
           "quant_fc", "quant_binary", "quant_conv", "quant_move", "quant_reduce", "recurrent",
           "select"]
