"""Shape rules of the convolutions: CONV_2D (grouped or not: core/ops/conv2d.py conv_groups),
CONV_3D and CONV_3D_TRANSPOSE (core/ops/conv3d.py), TRANSPOSE_CONV (the output_shape input's
value, checked against the input and the weights: core/ops/transpose_conv.py). The transposed
ones make their output dynamic when output_shape is not constant. DEPTHWISE_CONV_2D and the
pooling ops have theirs in shape_inference."""
from __future__ import annotations

from ..ops.conv2d import conv_groups
from ..ops.conv3d import conv3d_shape, conv3d_transpose_shape
from ..ops.transpose_conv import transpose_conv_shape
from .shape_inference import rule, spatial


@rule("Conv2D")
def _conv(op, shapes, v):
    conv_groups(shapes[0], shapes[1])
    cout, kh, kw, _ = shapes[1]
    return [spatial(op, shapes[0], kh, kw, op.params.dilation_h_factor,
                    op.params.dilation_w_factor, cout)]


@rule("Conv3D")
def _conv3d(op, shapes, v):
    return [conv3d_shape(op.params, shapes[0], shapes[1])]


@rule("Conv3DTranspose")
def _conv3d_transpose(op, shapes, v):
    value = v.need(op.inputs[0], "output_shape")
    return [conv3d_transpose_shape(value, op.params, shapes[2], shapes[1])]


@rule("TransposeConv")
def _transpose_conv(op, shapes, v):
    value = v.need(op.inputs[0], "output_shape")
    return [transpose_conv_shape(value, shapes[2], shapes[1])]
