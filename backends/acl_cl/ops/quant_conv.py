"""Quantized 8-bit Conv2D and DepthwiseConv2D with the interpreter's integer results: int32
accumulation of (x - x_zp) * (w - w_zp) over the valid taps (Conv2D: exact float32 sums of
256-tap chunks, see cl/quant.cl qconv) plus the int32 bias, then the
rescale of the cpu kernels (backends/cpu/ops/quant/qconv.py, qconv_dw.py), whose checks run
here as a shadow and whose multipliers are QuantizeMultiplier(double(s_x) * double(s_w[c]) /
double(s_y)): Conv2D rescales every channel with the vector rounding (halves up after the high
multiply); DepthwiseConv2D int8 does so on the first cout - cout % 8 channels and rounds the
last cout % 8 with the reference rounding (halves away from zero), uint8 depthwise uses the
reference rounding on every channel (the cpu kernels' `reference_split`). int16 activations are
refused (they run on cpu)."""
from __future__ import annotations

import numpy as np

from ....core.quant import qmath
from ...cpu.ops.quant.qconv import QConv2DLayer
from ...cpu.ops.quant.qconv_dw import QDepthwiseConv2DLayer
from .common import check_act
from .conv import conv_geometry, gemm_launch
from .quant_common import I32, U8, QClKernel, quantized, quantized_8bit, register

QDPIX = 8     # output pixels per work item of quant.cl qdepthwise (its QDPIX)


@register("Conv2D", when=quantized_8bit)
class QConvLayer(QClKernel):
    cpu_class = QConv2DLayer
    depthwise = False
    index_at = (2,)         # the int32 bias (ClKernel's int32 operand check)

    @classmethod
    def check_params(cls, op, graph):
        g = graph.operands
        if len(op.inputs) < 3 or op.inputs[2] < 0:
            return False, f"quantized {op.type} needs a bias (as TFLite)"
        x, w, b, y = (g[i] for i in (*op.inputs[:3], op.outputs[0]))
        if len(x.shape) != 4 or len(w.shape) != 4:
            return False, f"acl_cl quantized {op.type} needs NHWC input and a 4-D filter"
        if not (quantized(w) and w.dtype == x.dtype == y.dtype):
            return False, (f"acl_cl quantized {op.type} needs one 8-bit type on input, filter "
                           f"and output, got {x.type_name}/{w.type_name}/{y.type_name}")
        if not (w.is_constant and b.is_constant) or b.dtype != I32:
            return False, f"acl_cl quantized {op.type} needs a constant filter and int32 bias"
        return check_act(op)      # refuses RELU_0_TO_1 (not in common.CLAMP)

    def validate(self) -> None:
        sh = self.shadow()       # the cpu kernel's checks (bias scale, zero points, ...)
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        axis = 3 if self.depthwise else 0
        cout = int(w.shape[axis])
        ws = np.asarray(w.quant.scale, np.float32).reshape(-1)
        product = np.float64(sh.scale(x)) * ws.astype(np.float64)
        mult, shift = qmath.quantize_multiplier(np.broadcast_to(product / np.float64(
            sh.scale(y)), (cout,)))
        self.mult, self.shift = mult.astype(np.int32), shift.astype(np.int32)
        self.split = sh.requant.split
        self.wzp = int(w.quant.zero_point[0]) if x.dtype == U8 else 0
        self.xzp, self.yzp = sh.zero_point(x), sh.zero_point(y)
        self.lo, self.hi = sh.requant.lo, sh.requant.hi
        self.bias = np.asarray(self.inputs[2].data, np.int64).reshape(cout).astype(np.int32)

    def setup(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        n, geo = conv_geometry(self.op, x, w, y, self.depthwise)
        cin, oh, ow, cout, kh, kw = geo[2:8]
        m = n * oh * ow
        if self.depthwise:
            pad, opts = -(-cout // 8) * 8, "-DQVW=8"      # qdepthwise's 8-lane epilogue
            gsize = (pad // 8, -(-ow // QDPIX), n * oh)
        else:
            opts, gsize, pad = gemm_launch(m, cout)
            opts = opts.replace("-D", "-DQ")
        taps = kh * kw if self.depthwise else kh * kw * cin
        f = np.asarray(w.data).astype(np.int16)
        f = f.reshape(taps, cout) if self.depthwise else f.reshape(cout, taps).T
        wt = np.zeros((taps, pad), np.int16 if self.depthwise else np.float32)
        wt[:, :cout] = f - np.int16(self.wzp)
        geo = np.array(geo + [pad, cout // cin if self.depthwise else m], np.int32)
        per_channel = [np.zeros(pad, np.int32) for _ in range(3)]    # padded to CoutPad
        for dst, src in zip(per_channel, (self.bias, self.mult, self.shift)):
            dst[:cout] = src
        self.bufs = [self.const_buffer(a) for a in (wt, *per_channel, geo)]
        ints = [np.int32(v) for v in (self.xzp, self.yzp, self.lo, self.hi, self.split)]
        if not y.size:
            return
        name = "qdepthwise" if self.depthwise else "qconv"
        self.launch(self.kernel("quant.cl", name, f"{self.qopts(x.dtype)} {opts}".strip()),
                    gsize, None, x.buffer, self.bufs[0], self.bufs[1], y.buffer, *self.bufs[2:],
                    *ints)


@register("DepthwiseConv2D", when=quantized_8bit)
class QDepthwiseLayer(QConvLayer):
    cpu_class = QDepthwiseConv2DLayer
    depthwise = True
