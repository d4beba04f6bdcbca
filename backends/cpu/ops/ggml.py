"""Circle's GGML block-quantized forms: FULLY_CONNECTED with GGML weights and GATHER of GGML
params, computed from the blocks with NumPy (block layouts and GGML's arithmetic:
core/quant/ggml_blocks.py; checks: core/ops/fully_connected.py GgmlFullyConnectedBase and
core/ops/gather.py GgmlGatherBase).

FULLY_CONNECTED never holds the whole float weight matrix: each run quantizes the input rows
into the activation blocks GGML's mul_mat uses, then takes CHUNK_BYTES of weight rows at a
time, their integer block dots with one float32 matmul (exact: every partial sum is an integer
below 2^24) and the scales of both sides."""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import ggml_params, ggml_weights
from ....core.ops.fully_connected import GgmlFullyConnectedBase
from ....core.ops.gather import GgmlGatherBase
from ....core.quant import ggml_blocks
from .common import register

F32 = np.dtype(np.float32)
CHUNK_BYTES = 1 << 22       # working set of one step (weight values, block dots): 4 MiB


@register("FullyConnected", when=ggml_weights)
class GgmlFullyConnectedLayer(GgmlFullyConnectedBase):
    def prepare(self) -> None:
        self.x2d = self.buf(0).reshape(-1, self.depth)
        self.y2d = self.out.reshape(self.x2d.shape[0], self.units)
        self.acts = ggml_blocks.block_format(ggml_blocks.ACTIVATIONS[self.fmt.name])
        rows = self.x2d.shape[0]
        self.check_scratch("quantized input", (rows, self.depth), F32)
        # a chunk's weight values [chunk, depth] and block dots [blocks, chunk, rows]
        per_unit = self.depth // ggml_blocks.QK * (ggml_blocks.QK + rows) * F32.itemsize
        self.chunk = max(1, CHUNK_BYTES // per_unit)

    def run(self) -> None:
        xq, dx, sx = ggml_blocks.quantize_activations(self.acts, self.x2d)   # [rows, blocks, 32]
        xt = xq.astype(F32).transpose(1, 2, 0)                          # [blocks, 32, rows]
        w = self.buf(1)
        for n0 in range(0, self.units, self.chunk):
            q, dw, mw = ggml_blocks.fields(self.fmt, w[n0:n0 + self.chunk])
            if self.fmt.name == "GGML_Q4_0":
                q -= 8
            sumi = np.matmul(q.astype(F32).transpose(1, 0, 2), xt)     # [blocks, units, rows]
            y = np.einsum("bur,ub,rb->ru", sumi, dw, dx)
            if self.fmt.second == "m":                                  # Q4_1: + m_w * s_x
                y += sx @ mw.T
            self.y2d[:, n0:n0 + self.chunk] = y
        bias = self.buf(2)
        if bias is not None:
            self.y2d += bias.reshape(-1)
        if self.act is not None:
            self.act(self.y2d)


@register("Gather", when=ggml_params)
class GgmlGatherLayer(GgmlGatherBase):
    def run(self) -> None:
        idx = self.indices()                                            # [batch, n_idx]
        if self.dst.size == 0:
            return
        rows = np.stack([np.take(self.src[b], idx[b], axis=1) for b in range(self.batch)])
        values = ggml_blocks.dequantize(self.fmt, rows.reshape(-1, self.fmt.block_bytes))
        self.dst[...] = values.reshape(self.dst.shape)
