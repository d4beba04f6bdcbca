"""Shape rule of TRANSPOSE_CONV: the output_shape input's value, checked against the input and
the weights (core/ops/transpose_conv.py). CONV_2D, DEPTHWISE_CONV_2D and the pooling ops have
theirs in shape_inference."""
from __future__ import annotations

from ..ops.transpose_conv import transpose_conv_shape
from .shape_inference import rule


@rule("TransposeConv")
def _transpose_conv(op, shapes, v):
    value = v.need(op.inputs[0], "output_shape")
    return [transpose_conv_shape(value, shapes[2], shapes[1])]
