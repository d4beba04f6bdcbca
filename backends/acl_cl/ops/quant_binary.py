"""Quantized 8-bit BinaryArithmetic ADD / SUB / MUL and Softmax with the interpreter's integer
results, from the reference kernels' own precomputation run as a shadow:
- ADD/SUB/MUL: the core bases (core/ops/binary_arithmetic.py QAddSubBase, QMulBase, which the cpu
  kernels run too) tabulate their exact arithmetic over all 65536 input pairs per loop kind of
  TFLite's optimized kernels (core/quant/qpairtable.py) and compute every output element's
  loop kind from the shapes (qbinary_math.loop_kinds); both are uploaded once and the device
  gathers y = table[kind, a, b] with broadcasting. Float form: elementwise.py.
- Softmax (int8/uint8 input, same type or int16 output): the cpu kernel's float32 exp table
  (qsoftmax.softmax_exp_table); one work item per row sums in float32 left to right as it does,
  with fused multiply-adds off and correctly rounded division.
int16 inputs are refused (they run on cpu)."""
from __future__ import annotations

import numpy as np

from ....core.ops.binary_arithmetic import QAddSubBase, QMulBase
from ...cpu.ops.quant.qsoftmax import QSoftmax
from . import quant_common as qc
from .common import bcast_meta, check_act
from .quant_common import CL_TYPE, QClKernel, quantized_8bit, register

I16 = np.dtype(np.int16)


@register("BinaryArithmetic", when=quantized_8bit)
class QBinaryLayer(QClKernel):
    cpu_class = {"ADD": QAddSubBase, "SUB": QAddSubBase, "MUL": QMulBase}

    @classmethod
    def check_params(cls, op, graph):
        if op.subtype not in cls.cpu_class:
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


@register("Softmax", when=quantized_8bit)
class QSoftmaxLayer(QClKernel):
    cpu_class = QSoftmax
    out_types = qc.Q8 | {I16}

    @classmethod
    def check_params(cls, op, graph):
        x = graph.operands[op.inputs[0]]
        if not x.shape:
            return False, "acl_cl quantized Softmax needs rank >= 1"
        return True, ""

    def validate(self) -> None:
        sh = self.shadow()
        self.table, self.out_scale, self.zp = sh.table, sh.out_scale, sh.zp

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        depth = int(x.shape[-1])
        rows = x.size // max(depth, 1)
        info = np.iinfo(y.dtype)
        mode = 1 if y.dtype == qc.U8 else 0
        opts = (f"{self.qopts(x.dtype)} -DOT={CL_TYPE[np.dtype(y.dtype)]} "
                f"-cl-fp32-correctly-rounded-divide-sqrt")
        self.tab = self.const_buffer(np.asarray(self.table, np.float32))
        if x.size:
            self.launch(self.kernel("quant.cl", "qsoftmax", opts), (rows,), None, x.buffer,
                        y.buffer, self.tab, np.int32(depth), np.int32(rows),
                        np.float32(self.out_scale), np.int32(self.zp), np.int32(mode),
                        np.int32(info.min), np.int32(info.max))
