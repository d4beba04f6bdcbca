"""Pool2D (AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D): the parameters, validation and window
geometry of TFLite's pooling.cc that every backend shares.

- The window: filter_height x filter_width taps, strides stride_h / stride_w, SAME or VALID
  padding (`pool_geometry`); the fused activation of the float kernels is a clamp (RELU,
  RELU6, RELU_N1_TO_1), any other one is ignored as the interpreter ignores it.
- Quantized AVERAGE and MAX (int8, uint8, int16) work in the input's integer domain: pooling.cc
  expects the output to carry the input's scale and zero point (a DCHECK in Prepare), so a
  mismatch is refused at compile time; the output is clamped to the fused activation's range.
  L2_POOL_2D has no quantized kernel in TFLite (Prepare refuses it); it stays refused.

Kernels: backends/cpu/ops/pool2d.py (float) and backends/cpu/ops/quant/qpool.py (quantized, with
the integer arithmetic), acl_neon ops/pool2d.py and ops/quant_pool2d.py, acl_cl ops/pool2d.py
and ops/quant_pool2d.py.
"""
from __future__ import annotations

from typing import NamedTuple

from .base import OpKernel, clamp_activation, conv_padding
from .quant_base import QuantOpKernel

QUANTIZED_KINDS = ("AVERAGE_POOL_2D", "MAX_POOL_2D")    # the sub-types with quantized kernels


class PoolGeometry(NamedTuple):
    n: int
    h: int
    w: int
    c: int
    oh: int
    ow: int
    kh: int
    kw: int
    sh: int
    sw: int
    pt: int      # padding: top, bottom, left, right
    pb: int
    pl: int
    pr: int


def pool_geometry(params, x_shape, y_shape) -> PoolGeometry:
    """The window of a 2-D NHWC pooling: input `x_shape`, output `y_shape`, the params' filter
    size, strides and SAME/VALID padding."""
    n, h, w, c = (int(v) for v in x_shape)
    oh, ow = int(y_shape[1]), int(y_shape[2])
    kh, kw, sh, sw = params.filter_height, params.filter_width, params.stride_h, params.stride_w
    pt, pb, pl, pr = conv_padding(params.padding, h, w, kh, kw, sh, sw, 1, 1, oh, ow)
    return PoolGeometry(n, h, w, c, oh, ow, kh, kw, sh, sw, pt, pb, pl, pr)


class Pool2DBase(OpKernel):
    """Float pooling: an NHWC input; `act` is the fused clamp (None: none)."""

    def validate(self) -> None:
        if len(self.inputs[0].shape) != 4:
            raise self.fail(f"pooling needs NHWC input, got {self.inputs[0].shape}")
        self.act = clamp_activation(self.op.params.get("fused_activation_function"))


class QPool2DBase(QuantOpKernel):
    """Quantized AVERAGE / MAX pooling: an NHWC input, the output of the input's type, scale and
    zero point; (`lo`, `hi`) is the output clamp under the fused activation."""

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if len(x.shape) != 4:
            raise self.fail(f"pooling needs NHWC input, got {x.shape}")
        if x.dtype != y.dtype:
            raise self.fail(f"quantized pooling needs equal input/output types, got {x.dtype} "
                            f"and {y.dtype}")
        self.check_same_quant(x, y)
        self.lo, self.hi = self.qrange(y, self.op.params.get("fused_activation_function"))


__all__ = ["QUANTIZED_KINDS", "PoolGeometry", "pool_geometry", "Pool2DBase", "QPool2DBase"]
