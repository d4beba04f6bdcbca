"""CONV_3D and CONV_3D_TRANSPOSE's shared logic: the window geometry on three spatial axes, the
output shapes (the shape rules are core/compiler/shape_rules_conv.py's) and the float kernels'
checks (`Conv3DBase`, `Conv3DTransposeBase`).

TFLite's builtin kernels (conv3d.cc, conv3d_transpose.cc) take float32 only: input, filter,
bias and output (no quantized or hybrid form: the interpreter refuses int8 and int16 inputs and
int8 filters). Strides and dilations are per axis (d, h, w); the padding of each axis is the
2-D scheme (padding.h ComputePadding3DValues: SAME pads total // 2 before, the rest after;
VALID pads nothing); the fused activation is a clamp (CalculateActivationRange: TANH and
SIGN_BIT clamp nothing).

CONV_3D: input NDHWC, filter [KD, KH, KW, I, O] with I the input's channels (no groups),
optional bias [O]; out[n, d, h, w, o] = bias[o] + sum x[n, d*sd - pd + i*dd, ...] * filter[i,
j, k, c, o] over the taps inside the input (reference_ops::Conv3D).
CONV_3D_TRANSPOSE: inputs output_shape int32[5], filter [KD, KH, KW, O, I], input NDHWC with I
channels, optional bias [O]. Each input element adds input * filter[i, j, k, o, c] at output
position d*sd - pd + i*dd (per axis; positions outside the output are dropped), where the
padding is that of a forward convolution of the output size; that convolution's output size
must be the input's (TFLite checks it). The output channels must be the filter's O: TFLite only
checks they are a multiple of it and reads past the filter otherwise. A non-constant
output_shape makes the output dynamic.

Kernels: cpu backends/cpu/ops/conv3d.py, conv3d_transpose.py. acl_neon and acl_cl have none:
the ops run on cpu.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..compiler.shape_inference import conv_out
from ..ir import Graph, Operation
from .base import OpKernel, clamp_activation, same_padding

F32, I32 = np.dtype(np.float32), np.dtype(np.int32)


class Window3D(NamedTuple):
    """A 3-D window: per spatial axis (d, h, w) the filter size, stride, dilation and the
    (before, after) padding."""
    k: tuple[int, int, int]
    strides: tuple[int, int, int]
    dilations: tuple[int, int, int]
    pads: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]


def strides_dilations(params) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The (d, h, w) strides and dilations of Conv3DOptions; ValueError unless all are >= 1 and
    the padding is SAME or VALID."""
    strides = (params.stride_d, params.stride_h, params.stride_w)
    dilations = (params.dilation_d_factor, params.dilation_h_factor, params.dilation_w_factor)
    if min(strides) < 1 or min(dilations) < 1:
        raise ValueError(f"strides {strides} and dilations {dilations} (d, h, w) must be at "
                         f"least 1")
    if params.padding not in ("SAME", "VALID"):
        raise ValueError(f"unknown padding {params.padding!r} (SAME or VALID)")
    return strides, dilations


def window(params, in_sizes, k, out_sizes) -> Window3D:
    """The window of a 3-D convolution from spatial size `in_sizes` to `out_sizes` (d, h, w)."""
    strides, dilations = strides_dilations(params)
    if params.padding == "SAME":
        pads = tuple(same_padding(i, f, s, d, o) for i, f, s, d, o in
                     zip(in_sizes, k, strides, dilations, out_sizes))
    else:
        pads = ((0, 0),) * 3
    return Window3D(tuple(k), strides, dilations, pads)


def out_sizes(params, in_sizes, k) -> tuple[int, int, int]:
    """The spatial output size (d, h, w) of a forward 3-D convolution (ComputeOutSize)."""
    strides, dilations = strides_dilations(params)
    return tuple(conv_out(i, f, s, d, params.padding)
                 for i, f, s, d in zip(in_sizes, k, strides, dilations))


def _check_operands(op: str, x, w, layout: str, in_axis: int) -> None:
    """5-D input and filter (`layout` names the filter's axes), the input's channels those of
    filter axis `in_axis`, filter sizes >= 1; ValueError naming the problem."""
    if len(x) != 5 or len(w) != 5:
        raise ValueError(f"{op} needs a 5-D input (NDHWC) and filter ({layout}), got "
                         f"{tuple(x)} and {tuple(w)}")
    if x[4] != w[in_axis]:
        raise ValueError(f"input channels {x[4]} differ from the filter's {w[in_axis]} (filter "
                         f"is [{layout}]; TFLite has no grouped {op})")
    if min(w[:3]) < 1:
        raise ValueError(f"filter sizes {tuple(w[:3])} must be at least 1")


def conv3d_shape(params, x, w) -> tuple[int, ...]:
    """CONV_3D's output shape for input NDHWC `x` and filter [KD, KH, KW, I, O] `w`; ValueError
    naming the problem."""
    _check_operands("CONV_3D", x, w, "KD, KH, KW, I, O", 3)
    out = out_sizes(params, x[1:4], w[:3])
    if min(out) < 0:
        raise ValueError(f"the filter {tuple(w[:3])} is larger than the input {tuple(x[1:4])}")
    return (x[0], *out, w[4])


def conv3d_transpose_shape(out_shape, params, x, w) -> tuple[int, ...]:
    """CONV_3D_TRANSPOSE's output shape: the output_shape value, checked against input NDHWC
    `x` and filter [KD, KH, KW, O, I] `w`; ValueError naming the problem."""
    out = tuple(int(d) for d in np.asarray(out_shape).reshape(-1))
    if len(out) != 5:
        raise ValueError(f"output_shape must hold 5 values (NDHWC), got {out}")
    _check_operands("CONV_3D_TRANSPOSE", x, w, "KD, KH, KW, O, I", 4)
    if min(out) < 1:
        raise ValueError(f"output_shape {out} must be positive")
    if out[0] != x[0]:
        raise ValueError(f"output_shape batch {out[0]} differs from the input's {x[0]}")
    if out[4] != w[3]:
        raise ValueError(f"output_shape channels {out[4]} differ from the filter's {w[3]}")
    back = out_sizes(params, out[1:4], w[:3])
    if back != tuple(x[1:4]):
        raise ValueError(f"a {params.padding} convolution of the output size {out[1:4]} gives "
                         f"{back}, not the input's {tuple(x[1:4])}")
    return out


def _fail_on_value_error(kernel, fn, *args):
    try:
        return fn(*args)
    except ValueError as e:
        raise kernel.fail(str(e)) from None


def _check_float(kernel, **tensors) -> None:
    for name, t in tensors.items():
        if t is not None and t.dtype != F32:
            raise kernel.fail(f"{name} must be float32, not {t.dtype} (TFLite's "
                              f"{kernel.op.name} has no quantized or hybrid form)")


class Conv3DBase(OpKernel):
    """Float CONV_3D: inputs (input, filter, bias?); `act` the fused clamp; `geometry()` (at
    prepare time) the window."""

    def validate(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        bias = self.inputs[2] if len(self.inputs) > 2 else None
        _check_float(self, filter=w, bias=bias, output=y)
        _fail_on_value_error(self, strides_dilations, self.op.params)
        if len(w.shape) != 5:
            raise self.fail(f"filter must be 5-D [KD, KH, KW, I, O], got {tuple(w.shape)}")
        if bias is not None and tuple(bias.shape) != (w.shape[4],):
            raise self.fail(f"bias must have shape ({w.shape[4]},), got {tuple(bias.shape)}")
        if not self.dynamic:         # else the shape rule checks the shapes at run time
            shape = _fail_on_value_error(self, conv3d_shape, self.op.params, x.shape, w.shape)
            if tuple(y.shape) != shape:
                raise self.fail(f"output shape {tuple(y.shape)} is not {shape}")
        self.act = clamp_activation(self.op.params.fused_activation_function)

    def geometry(self) -> Window3D:
        x, w, y = self.inputs[0].shape, self.inputs[1].shape, self.outputs[0].shape
        return window(self.op.params, x[1:4], w[:3], y[1:4])


class Conv3DTransposeBase(OpKernel):
    """Float CONV_3D_TRANSPOSE: inputs (output_shape, filter, input, bias?); `act` the fused
    clamp; `geometry()` (at prepare time) the window of the forward convolution (output ->
    input) whose padding it undoes."""

    data = 2

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        if len(op.inputs) < 3 or min(op.inputs[:3]) < 0:
            return False, "CONV_3D_TRANSPOSE needs output_shape, filter and input"
        return super().supports(op, graph)

    def validate(self) -> None:
        shape_t, w, x, y = self.inputs[0], self.inputs[1], self.inputs[2], self.outputs[0]
        bias = self.inputs[3] if len(self.inputs) > 3 else None
        if shape_t.dtype != I32:
            raise self.fail(f"output_shape must be int32, not {shape_t.dtype}")
        _check_float(self, filter=w, bias=bias, output=y)
        p = self.op.params
        _fail_on_value_error(self, strides_dilations, p)
        if len(w.shape) != 5:
            raise self.fail(f"filter must be 5-D [KD, KH, KW, O, I], got {tuple(w.shape)}")
        if bias is not None and tuple(bias.shape) != (w.shape[3],):
            raise self.fail(f"bias must have shape ({w.shape[3]},), got {tuple(bias.shape)}")
        if not self.dynamic:
            _fail_on_value_error(self, conv3d_transpose_shape, y.shape, p, x.shape, w.shape)
        self.act = clamp_activation(p.fused_activation_function)

    def geometry(self) -> Window3D:
        w, y = self.inputs[1].shape, self.outputs[0].shape
        x = self.inputs[2].shape
        return window(self.op.params, y[1:4], w[:3], x[1:4])


__all__ = ["Window3D", "window", "out_sizes", "strides_dilations", "conv3d_shape",
           "conv3d_transpose_shape", "Conv3DBase", "Conv3DTransposeBase"]
