"""CONV_2D on acl_cl (program conv.cl conv_gemm: one implicit-GEMM kernel, float32) and its
8-bit quantized form (quant.cl qconv) with the interpreter's integer results: int32
accumulation of (x - x_zp) * (w - w_zp) over the valid taps (exact float32 sums of 256-tap
chunks, see cl/quant.cl qconv) plus the int32 bias, then the rescale of core/ops/conv2d.py,
whose checks run here as a shadow (quant_common.host_shadow) and whose multipliers are
QuantizeMultiplier(double(s_x) * double(s_w[c]) / double(s_y)): every channel is rescaled with
the vector rounding (halves up after the high multiply). int16 activations are refused (they run
on cpu). DEPTHWISE_CONV_2D's quantized kernel (depthwise_conv2d.py) shares QConv2DLayer's setup.
Both read the filter over all input channels: grouped convolutions are refused
(core/ops/conv2d.py ungrouped_only) and run on cpu.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.conv2d import QConv2DBase, ungrouped_only
from .common import check_act, register
from .gemm import GemmBase, conv_args, const_weights, gemm_launch
from .quant_common import I32, QClKernel, is_8bit_quantized, quantized_8bit

QDPIX = 8     # output pixels per work item of quant.cl qdepthwise (its QDPIX)


@register("Conv2D")
class Conv2DLayer(GemmBase):
    grouped_kernel = False

    @classmethod
    def check_params(cls, op, graph):
        if len(graph.operands[op.inputs[0]].shape) != 4:
            return False, "acl_cl Conv2D needs NHWC input"
        ok, why = ungrouped_only(cls, op, graph)
        return const_weights(op, graph) if ok else (ok, why)

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(w.shape) != 4 or x.shape[3] != w.shape[3]:
            raise self.fail(f"acl_cl Conv2D needs an OHWI filter over all input channels, got "
                            f"input {x.shape} and filter {w.shape}")

    def setup(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        n, geo = conv_args(self.op, x, w, y)
        cin, oh, ow, cout, kh, kw = geo[2:8]
        self.upload_weights(np.asarray(w.data, np.float32).reshape(cout, kh * kw * cin).T, cout,
                            n * oh * ow)
        self.gemm(x, y, geo[:6] + [self.cout_pad] + geo[6:], n * oh * ow, cout)


@register("Conv2D", when=quantized_8bit)
class QConv2DLayer(QClKernel):
    base_class = QConv2DBase     # the shadow: core/ops' checks and constants
    depthwise = False
    grouped_kernel = False
    index_at = (2,)         # the int32 bias (ClKernel's int32 operand check)

    @classmethod
    def check_params(cls, op, graph):
        g = graph.operands
        if len(op.inputs) < 3 or op.inputs[2] < 0:
            return False, f"quantized {op.type} needs a bias (as TFLite)"
        x, w, b, y = (g[i] for i in (*op.inputs[:3], op.outputs[0]))
        if len(x.shape) != 4 or len(w.shape) != 4:
            return False, f"acl_cl quantized {op.type} needs NHWC input and a 4-D filter"
        if not (is_8bit_quantized(w) and w.dtype == x.dtype == y.dtype):
            return False, (f"acl_cl quantized {op.type} needs one 8-bit type on input, filter "
                           f"and output, got {x.type_name}/{w.type_name}/{y.type_name}")
        if not (w.is_constant and b.is_constant) or b.dtype != I32:
            return False, f"acl_cl quantized {op.type} needs a constant filter and int32 bias"
        ok, why = ungrouped_only(cls, op, graph)
        # check_act refuses RELU_0_TO_1 (not in common.CLAMP)
        return check_act(op) if ok else (ok, why)

    def validate(self) -> None:
        sh = self.shadow()       # core/ops' checks (bias scale, zero points, ...) and constants
        x, y = self.inputs[0], self.outputs[0]
        self.mult, self.shift = sh.mult.astype(np.int32), sh.shift.astype(np.int32)
        self.split = sh.requant.split
        self.wq = sh.wq         # the filter minus its zero point (uint8's; int8's is 0)
        self.xzp, self.yzp = sh.zero_point(x), sh.zero_point(y)
        self.lo, self.hi = sh.requant.lo, sh.requant.hi
        self.bias = sh.bq.astype(np.int32)

    def setup(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        n, geo = conv_args(self.op, x, w, y, self.depthwise)
        cin, oh, ow, cout, kh, kw = geo[2:8]
        m = n * oh * ow
        if self.depthwise:
            pad, opts = -(-cout // 8) * 8, "-DQVW=8"      # qdepthwise's 8-lane epilogue
            gsize = (pad // 8, -(-ow // QDPIX), n * oh)
        else:
            opts, gsize, pad = gemm_launch(m, cout)
            opts = opts.replace("-D", "-DQ")
        taps = kh * kw if self.depthwise else kh * kw * cin
        f = self.wq.reshape(taps, cout) if self.depthwise else self.wq.reshape(cout, taps).T
        wt = np.zeros((taps, pad), np.int16 if self.depthwise else np.float32)
        wt[:, :cout] = f
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
