"""acl_cl kernels: the registry whose keys are the backend's supported-op list."""
from __future__ import annotations

from . import (concat, conv, elementwise, gather, movement, norm, one_hot, pad, quant_fc,
               reduce, reshape, reverse, select, slice, space_batch, space_depth, split, tile,
               transpose)
from . import quant_binary, quant_conv, quant_move, quant_reduce, recurrent
from .common import kernels

__all__ = ["kernels", "concat", "conv", "elementwise", "gather", "reduce", "movement", "norm",
           "one_hot", "pad", "quant_fc", "quant_binary", "quant_conv", "quant_move",
           "quant_reduce", "recurrent", "reshape", "reverse", "select", "slice", "space_batch",
           "space_depth", "split", "tile", "transpose"]
