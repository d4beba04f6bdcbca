"""FULLY_CONNECTED's shared logic: the float kernels' checks (`FullyConnectedBase`) and the
quantized form's Prepare (`QFullyConnectedBase`: quantization checks, multipliers, clamps).

The quantized form matches tensorflow/lite/kernels/fully_connected.cc (kGenericOptimized, the
builtin resolver's registration) as it runs on x86, verified against the interpreter on ties
(multipliers 0.25, 0.5), multipliers < 1 and > 1, sizes that are and are not multiples of
4/8/16, batch 1 and larger:

* int8 (per-tensor or per-channel weights, axis 0) and uint8 (per-tensor, weight zero point
  allowed): cpu_backend_gemm (ruy) with int32 accumulators, acc = sum (x - x_zp)(w - w_zp) + bias,
  rescaled by the VECTOR rounding (qmath.multiply_by_quantized_multiplier_vector: rounding
  doubling high multiply, then a right shift rounding halves up) for every element, no scalar
  tail. Per-tensor multiplier: QuantizeMultiplier(double(float32(s_x * s_w)) / s_y) -- the scale
  product is taken in float32 (GetQuantizedConvolutionMultipler); per-channel:
  double(s_x) * double(s_w[c]) / double(s_y).
* int16 activations with int8 weights, when input, weight and output zero points are all 0 and
  the bias is int32 or absent: the same ruy path (int32 accumulators) and rounding.
* int16 otherwise (int64 bias, or a non-zero weight zero point): the reference kernel, which
  rescales in double: round(double(acc) * (double(s_x) * double(s_w) / double(s_y))), halves away
  from zero, accumulating in int64 (`reference`, `effective`).
Weights zero points are ignored per-channel (TFLite's FullyConnectedPerChannel assumes 0).

Circle's GGML form (`GgmlFullyConnectedBase`): float32 input and output, constant weights of
GGML blocks (GGML_Q4_0 .. GGML_Q8_1), the product GGML's CPU matrix product computes (onert's
cpu backend runs ggml_mul_mat): the input quantized per 32-value block, exact integer block
dots (core/quant/ggml_blocks.py).

Kernels: cpu backends/cpu/ops/fully_connected.py (float), quant/qfully_connected.py
(quantized), hybrid_fully_connected.py (hybrid), ggml.py (GGML); acl_neon
ops/fully_connected.py, ops/ggml.py; acl_cl ops/fully_connected.py.
"""
from __future__ import annotations

import numpy as np

from ..ir import Graph, Operation
from ..quant import qmath
from .base import CLAMPS, F32, OpKernel, activation
from .forms import is_quantized
from .quant_base import I8, I16, U8, QuantOpKernel

I32, I64, FLOAT32 = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32)


def fc_multipliers(s_in: float, w_scales: np.ndarray, s_out: float) -> np.ndarray:
    """The real multipliers as fully_connected.cc's Prepare computes them (see module doc)."""
    w = np.asarray(w_scales, np.float32).reshape(-1)
    if w.size == 1:
        prod = np.float64(np.float32(s_in) * w[0])
        return np.array([prod / np.float64(np.float32(s_out))])
    return np.float64(np.float32(s_in)) * w.astype(np.float64) / np.float64(np.float32(s_out))


class FullyConnectedBase(OpKernel):
    """Float FULLY_CONNECTED: 2-D weights [units, depth], the input flattened to rows of depth,
    DEFAULT weights format; `act` the fused activation."""

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(w.shape) != 2:
            raise self.fail(f"weights must be 2-D, got {w.shape}")
        k = w.shape[1]
        n = int(np.prod(x.shape))
        if k == 0 or n % k:
            raise self.fail(f"input {x.shape} cannot be flattened to rows of {k}")
        if self.op.params.get("weights_format", "DEFAULT") != "DEFAULT":
            raise self.fail("shuffled weights formats are not supported")
        self.act = activation(self.op.params.fused_activation_function)


class QFullyConnectedBase(QuantOpKernel):
    """Quantized FULLY_CONNECTED. validate() leaves the zero points (`x_zp`, `w_zp`, `y_zp`),
    the clamp (`lo`, `hi`) and either `reference` with the double multipliers `effective`
    or QuantizeMultiplier's `m`, `s` (see the module doc)."""

    dtypes = frozenset({I8, U8, I16})

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        if len(op.inputs) < 2 or op.inputs[1] < 0:
            return False, "FULLY_CONNECTED needs weights"
        x, w = graph.operands[op.inputs[0]], graph.operands[op.inputs[1]]
        y = graph.operands[op.outputs[0]]
        if not is_quantized(graph, op.inputs[1]):
            return False, f"quantized FULLY_CONNECTED needs quantized weights ({w.dtype})"
        want_w = {I8: I8, U8: U8, I16: I8}[x.dtype]
        if w.dtype != want_w:
            return False, f"quantized FULLY_CONNECTED: {x.dtype} input needs {want_w} weights, " \
                          f"not {w.dtype}"
        if y.dtype != (I16 if x.dtype == I16 else x.dtype):
            return False, f"quantized FULLY_CONNECTED: {x.dtype} input with {y.dtype} output is " \
                          f"not supported"
        return super().supports(op, graph)

    def validate(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        bias = self.inputs[2] if len(self.inputs) > 2 else None
        p = self.op.params
        if p.get("weights_format", "DEFAULT") != "DEFAULT":
            raise self.fail("shuffled weights formats are not supported")
        act = p.get("fused_activation_function", "NONE") or "NONE"
        if act not in CLAMPS:
            raise self.fail(f"quantized FULLY_CONNECTED has no fused {act}")
        if len(w.shape) != 2:
            raise self.fail(f"weights must be 2-D, got {tuple(w.shape)}")
        units = int(w.shape[0])
        ws = self.filter_scales(x, w, y, units, 0)
        per_channel = ws.size > 1
        bias_dt = None if bias is None else bias.dtype
        if bias is not None:
            allowed = (I32, I64) if x.dtype == I16 else (I32,)
            if bias.dtype not in allowed:
                raise self.fail(f"bias must be {' or '.join(map(str, allowed))}, not {bias.dtype}")
            if tuple(bias.shape) and int(np.prod(bias.shape)) != units:
                raise self.fail(f"bias has {int(np.prod(bias.shape))} values for {units} units")
        w_zp = 0 if per_channel else self.zero_point(w)
        self.reference = x.dtype == I16 and (w_zp != 0 or bias_dt == I64)
        if self.reference and bias_dt == I32 and p.get("quantized_bias_type", "FLOAT32") != "INT32":
            # TFLite would read the int32 bias as int64 here
            raise self.fail("int16 FULLY_CONNECTED with a weight zero point and an int32 bias "
                            "needs quantized_bias_type INT32")
        s_in, s_out = self.scale(x), self.scale(y)
        self.y_zp, self.x_zp, self.w_zp = self.zero_point(y), self.zero_point(x), w_zp
        self.lo, self.hi = self.qrange(y, act)
        if self.reference:
            w64 = ws.astype(np.float64)
            self.effective = np.float64(s_in) * w64 / np.float64(s_out)
        else:
            self.m, self.s = qmath.quantize_multiplier(fc_multipliers(s_in, ws, s_out))


class GgmlFullyConnectedBase(OpKernel):
    """FULLY_CONNECTED with GGML block weights [units, depth] (Circle): float32 input flattened
    to rows of depth, float32 output, the product of GGML's mul_mat (module doc), then an
    optional float32 bias [units] and the fused activation. onert runs this form with the
    weights GGML_Q4_0 or GGML_Q8_0, no bias (a constant all-zero one is dropped) and (its ggml
    backend) no activation; the bias, the activations and the Q4_1 / Q8_1 weights here are
    this runtime's extension. validate() leaves `fmt` (ggml_blocks.BlockFormat), `units`,
    `depth` and `act`."""

    dtypes = F32        # the input's

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        ops = graph.operands
        w = ops[op.inputs[1]]
        if len(w.shape) != 2:
            return False, f"GGML FullyConnected weights must be 2-D [units, depth], not {w.shape}"
        b = op.inputs[2] if len(op.inputs) > 2 else -1
        if b >= 0 and ops[b].dtype != FLOAT32:
            return False, f"GGML FullyConnected takes a float32 bias, not {ops[b].type_name}"
        if ops[op.outputs[0]].dtype != FLOAT32:
            return False, (f"GGML FullyConnected writes float32, not "
                           f"{ops[op.outputs[0]].type_name}")
        return True, ""

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        from ..quant import ggml_blocks     # GGML models only: not on every cold start
        self.fmt = ggml_blocks.block_format(w.type_name)
        self.units, self.depth = int(w.shape[0]), int(w.shape[1])
        if int(np.prod(x.shape)) % self.depth:
            raise self.fail(f"input {x.shape} cannot be flattened to rows of {self.depth}")
        if self.op.params.get("weights_format", "DEFAULT") != "DEFAULT":
            raise self.fail("GGML weights have no shuffled format")
        bias = self.inputs[2] if len(self.inputs) > 2 else None
        if bias is not None and int(np.prod(bias.shape)) != self.units:
            raise self.fail(f"bias has {int(np.prod(bias.shape))} values for {self.units} units")
        self.act = activation(self.op.params.fused_activation_function)


__all__ = ["fc_multipliers", "FullyConnectedBase", "QFullyConnectedBase",
           "GgmlFullyConnectedBase"]
