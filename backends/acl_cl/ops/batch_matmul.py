"""BATCH_MATMUL (float32) on acl_cl (program conv.cl batch_matmul): adjoints as strides, batch
dimensions broadcast through per-batch operand offsets. The quantized forms run on cpu or
acl_neon.
"""
from __future__ import annotations

import numpy as np

from .common import ClKernel, register


@register("BatchMatMul")
class BatchMatMulLayer(ClKernel):
    def validate(self) -> None:
        a, b = self.inputs[0], self.inputs[1]
        if len(a.shape) < 2 or len(b.shape) < 2:
            raise self.fail(f"operands must be at least 2-D, got {a.shape} and {b.shape}")

    def setup(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        adj_x, adj_y = self.op.params.get("adj_x", False), self.op.params.get("adj_y", False)
        ra, ca = a.shape[-2:]
        rb, cb = b.shape[-2:]
        rows, inner = (ca, ra) if adj_x else (ra, ca)
        cols = rb if adj_y else cb
        a_si, a_sk = (1, ca) if adj_x else (ca, 1)
        b_sk, b_sj = (1, cb) if adj_y else (cb, 1)
        batch = y.shape[:-2]
        nb = int(np.prod(batch, dtype=np.int64))
        idx = np.indices(batch).reshape(len(batch), -1) if batch else np.zeros((0, 1), int)

        def offsets(shape):
            lead = shape[:-2]
            lead = (1,) * (len(batch) - len(lead)) + tuple(lead)
            step = int(shape[-1] * shape[-2])
            off = np.zeros(max(nb, 1), np.int64)
            stride = step
            for d in range(len(batch) - 1, -1, -1):
                off += np.where(lead[d] == 1, 0, idx[d]) * stride
                stride *= lead[d]
            return self.const_buffer(off.astype(np.int32))

        self.aoff, self.boff = offsets(a.shape), offsets(b.shape)
        ints = [np.int32(v) for v in (rows, cols, inner, a_si, a_sk, b_sk, b_sj)]
        if not y.size:
            return
        self.launch(self.kernel("conv.cl", "batch_matmul"),
                    (-(-cols // 8), -(-rows // 4), max(nb, 1)), None,
                    a.buffer, b.buffer, y.buffer, self.aoff, self.boff, *ints)
