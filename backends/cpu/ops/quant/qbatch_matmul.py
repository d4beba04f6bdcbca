"""Quantized BATCH_MATMUL (int8 x int8, int16 x int16, int16 x int8) with the interpreter's
integer results: core/ops/batch_matmul.py's QBatchMatMulBase holds the checks, the multiplier
and the reference computation (`compute`) that TFLite's batch_matmul.cc runs, which acl_neon
falls back to as well.

Float form: ../batch_matmul.py; hybrid form: ../hybrid_batch_matmul.py.
"""
from __future__ import annotations

from .....core.ops.batch_matmul import QBatchMatMulBase
from .base import quantized, register


@register("BatchMatMul", when=quantized)
class QBatchMatMulLayer(QBatchMatMulBase):
    def run(self) -> None:
        self.compute()
