"""Quantized 8-bit BinaryArithmetic ADD / SUB / MUL with the interpreter's integer results, from
the reference kernels' own precomputation run as a shadow: the core bases
(core/ops/binary_arithmetic.py QAddSubBase, QMulBase, which the cpu kernels run too) tabulate
their exact arithmetic over all 65536 input pairs per loop kind of TFLite's optimized kernels
(core/quant/qpairtable.py) and compute every output element's loop kind from the shapes
(qbinary_math.loop_kinds); both are uploaded once and the device gathers
y = table[kind, a, b] with broadcasting. int16 inputs are refused (they run on cpu). Float
form: elementwise.py. (Softmax: quant_softmax.py.)"""
from __future__ import annotations

import numpy as np

from ....core.ops.binary_arithmetic import QAddSubBase, QMulBase
from .common import bcast_meta, check_act
from .quant_common import QClKernel, quantized_8bit, register


@register("BinaryArithmetic", when=quantized_8bit)
class QBinaryLayer(QClKernel):
    base_class = {"ADD": QAddSubBase, "SUB": QAddSubBase, "MUL": QMulBase}

    @classmethod
    def check_params(cls, op, graph):
        if op.subtype not in cls.base_class:
            return False, f"acl_cl has no quantized {op.subtype}"
        a, b, y = (graph.operands[i] for i in (*op.inputs[:2], op.outputs[0]))
        if not a.dtype == b.dtype == y.dtype:
            return False, (f"acl_cl quantized {op.subtype} needs one 8-bit type, got "
                           f"{a.type_name}/{b.type_name}/{y.type_name}")
        if any(t.quant.per_channel for t in (a, b, y)):
            return False, f"quantized {op.subtype} is per-tensor only"
        return check_act(op)      # refuses RELU_0_TO_1 (not in common.CLAMP)

    def setup(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        sh = self.shadow(prepare=True)     # the tables and the loop kinds of these shapes
        if sh.table is None:
            raise self.fail(f"no 8-bit pair table for quantized {self.op.subtype}")
        if len(y.shape) > 6:
            raise self.fail(f"acl_cl quantized {self.op.subtype} supports rank <= 6")
        meta = bcast_meta(a.shape, b.shape, y.shape)
        use_kinds = sh.offsets is not None
        kinds = (np.asarray(sh.offsets, np.int64).reshape(-1).astype(np.int32) if use_kinds
                 else np.zeros(1, np.int32))
        table = np.ascontiguousarray(sh.table).view(np.uint8).reshape(-1)
        self.bufs = [self.const_buffer(v) for v in (table, meta, kinds)]
        if y.size:
            self.launch(self.kernel("quant.cl", "qpair_lookup"), (y.size,), None, a.buffer,
                        b.buffer, y.buffer, *self.bufs, np.int32(use_kinds), np.int32(y.size))
