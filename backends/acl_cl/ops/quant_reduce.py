"""Quantized 8-bit MEAN (Reduce.MEAN over constant axes) with the interpreter's integer results:
core/ops/reduce.py's QMeanBase runs as a shadow for its checks and its constants, the device
sums the reduced elements of every output in int32 (cl/quant.cl qmean) and rescales them
exactly as the cpu kernel (backends/cpu/ops/quant/qreduce.py QMeanLayer) does: the optimized
4-D "HW" mean (axes [1, 2], keep_dims) rescales the raw sum with the vector rounding on the
first depth - depth % 16 channels and the reference rounding on the rest, then adds its bias;
every other form rescales sum - count * in_zp with the reference rounding (1 / count folded
into the multiplier) and adds the output zero point; both clamp to the type. Sums that could
leave the int32 range (more than 2^23 reduced elements) are refused (they run on cpu). Float
form: reduce.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.movement import ints
from ....core.ops.reduce import QMeanBase, reduced_count
from ....core.quant import qmath
from .common import reduce_meta
from .quant_common import QClKernel, quantized_8bit, register

MAX_COUNT = 1 << 23        # 255 * count (and count * |zero point|) stay inside int32
INT32 = (-(1 << 31), (1 << 31) - 1)


@register("Reduce.MEAN", when=quantized_8bit)
class QMeanLayer(QClKernel):
    base_class = QMeanBase
    params_at = (1,)

    @classmethod
    def check_params(cls, op, graph):
        x, y = graph.operands[op.inputs[0]], graph.operands[op.outputs[0]]
        if x.dtype != y.dtype:
            return False, (f"acl_cl quantized MEAN needs one 8-bit type on input and output, "
                           f"got {x.type_name}/{y.type_name}")
        rank = len(x.shape)
        raw = ints(graph.operands[op.inputs[1]].data)
        if any(not -rank <= a < rank for a in raw):
            return False, f"MEAN axes {raw} out of range for rank {rank}"
        count = int(np.prod([x.shape[a % rank] for a in set(raw)], dtype=np.int64))
        if count > MAX_COUNT:
            return False, (f"acl_cl quantized MEAN sums in int32: {count} reduced elements "
                           f"are more than {MAX_COUNT}")
        return True, ""

    def validate(self) -> None:
        sh = self.shadow(prepare=True)
        self.axes, constants = sh.plan        # normalized axes; None: an empty reduction
        self.lo, self.hi = sh.lo, sh.hi
        if constants is None:                 # the cpu kernel's zeros: rescale(0) by 0, + 0
            self.args, self.split = (0, 0, 0, 0), 0
        else:
            hw, m, s, offset = constants
            x = self.inputs[0]
            depth = int(x.shape[-1]) if x.shape else 1
            # hw: rescale(sum) + bias (offset); else rescale(sum - count * in_zp) + out_zp
            self.args = (0, int(m), int(s), int(offset)) if hw else \
                (int(offset), int(m), int(s), sh.out_zp)
            self.split = qmath.vector_part(depth, 16) if hw else 0
        if not all(INT32[0] <= v <= INT32[1] for v in self.args):
            raise self.fail(f"quantized MEAN: constants {self.args} leave the int32 range")

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        count = reduced_count(x.shape, self.axes)
        depth = int(y.shape[-1]) if y.shape else 1
        self.meta = self.const_buffer(reduce_meta(x.shape, self.axes))
        ints = [np.int32(v) for v in (count, *self.args, self.split, max(depth, 1), self.lo,
                                      self.hi, y.size)]
        if y.size:
            self.launch(self.kernel("quant.cl", "qmean", self.qopts(x.dtype)), (y.size,), None,
                        x.buffer, y.buffer, self.meta, *ints)
