"""DEPTHWISE_CONV_2D's shared logic: the float kernels' checks (`DepthwiseConv2DBase`) and the
quantized form's Prepare (`QDepthwiseConv2DBase`, on core/ops/conv2d.py's QConvBase).

TFLite's builtin DEPTHWISE_CONV_2D runs, per input type (depthwise_conv.cc Eval):
  uint8 -> optimized_ops::DepthwiseConv (DepthwiseConvGeneral: int32 accumulators, then a
           rescale that matched the reference rounding on every element: halves away from zero),
  int8  -> optimized_integer_ops::DepthwiseConvPerChannel: its output stage rescales 8 channels
           at a time with the vector rounding (halves up) and the last cout % 8 channels of every
           pixel with the scalar reference rounding (probed: 3..40 channels, multipliers 1..4),
  int16 -> reference_integer_ops::DepthwiseConvPerChannel (int64 bias, int64 rescale).
`QDepthwiseConv2DBase.reference_split` says which channels take the reference rounding.

Kernels: cpu backends/cpu/ops/depthwise_conv2d.py (float), quant/qdepthwise_conv2d.py
(quantized), hybrid_conv.py (hybrid); acl_neon ops/depthwise_conv2d.py; acl_cl
ops/depthwise_conv2d.py.
"""
from __future__ import annotations

from .base import OpKernel, clamp_activation
from .conv2d import QConvBase
from .quant_base import I8, U8


class DepthwiseConv2DBase(OpKernel):
    """Float DEPTHWISE_CONV_2D: NHWC input, a 1xKHxKWxC filter with C a multiple of the input
    channels; the fused activation is a clamp (`act`)."""

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(x.shape) != 4 or len(w.shape) != 4 or w.shape[0] != 1:
            raise self.fail(f"DepthwiseConv2D needs NHWC input and a 1xKHxKWxC filter, got "
                            f"{x.shape} and {w.shape}")
        cin, cout = x.shape[3], w.shape[3]
        if cin == 0 or cout % cin:
            raise self.fail(f"filter channels {cout} are not a multiple of input channels {cin}")
        self.act = clamp_activation(self.op.params.fused_activation_function)


class QDepthwiseConv2DBase(QConvBase):
    """Quantized DEPTHWISE_CONV_2D: a 1xKHxKWxC filter, C a multiple of the input channels."""

    filter_axis = 3

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(x.shape) == 4 and len(w.shape) == 4:
            cin, cout = x.shape[3], w.shape[3]
            if w.shape[0] != 1 or cin <= 0 or cout % cin:
                raise self.fail(f"quantized DepthwiseConv2D needs a 1xKHxKWxC filter whose "
                                f"channels are a multiple of the input's, got {w.shape} for "
                                f"input {x.shape}")
        super().validate()

    def reference_split(self, cout: int) -> int:
        x = self.inputs[0]
        if x.dtype == U8:
            return 0
        if x.dtype == I8:
            return cout - cout % 8
        return cout


__all__ = ["DepthwiseConv2DBase", "QDepthwiseConv2DBase"]
