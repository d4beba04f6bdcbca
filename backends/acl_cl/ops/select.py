"""Gather, EmbeddingLookup, Comparison (-> bool), LOGICAL_AND/OR, OneHot. (ArgMinMax:
arg_min_max.py; TopKV2: topk_v2.py.)

Gather/EmbeddingLookup read computed indices on the device; an index out of range fails the
run as it fails TFLite's invoke: the kernel raises a flag that run() reads back (one small
blocking read per such op). Constant indices are checked once on the host instead."""
from __future__ import annotations

import numpy as np

from ....errors import ExecutionError
from .common import BOOL, ByteKernel, ClKernel, bcast_meta, register

I64 = np.dtype(np.int64)
IDX_TYPE = {np.dtype(np.int16): "short", np.dtype(np.int32): "int", I64: "long"}


class IndexCheck(ByteKernel):
    """Adds the out-of-range flag: cleared before, read after the kernel (computed indices)."""

    def checked_gather(self, x, idx, y, limit: int, nidx: int, inner: int) -> None:
        cl = self.rt.cl
        self.err = self.rt.buffer(4, np.zeros(1, np.int32))
        self.flag = np.zeros(1, np.int32)
        self.limit = limit
        computed = idx.data is None
        if computed:
            self.launches.append(lambda: cl.enqueue_fill_buffer(self.rt.queue, self.err,
                                                                np.int32(0), 0, 4))
        opts = f"{self.type_opts(y.dtype)} -DIDX={IDX_TYPE[np.dtype(idx.dtype)]}"
        self.launch(self.kernel("extra.cl", "gather_axis", opts), (y.size,),
                    None, x.buffer,
                    idx.buffer, y.buffer, self.err, np.int32(limit), np.int32(nidx),
                    np.int32(inner), np.int32(y.size))
        if computed:
            self.launches.append(self.read_flag)
        else:
            v = np.asarray(idx.data).reshape(-1)
            if v.size and (v.min() < 0 or v.max() >= limit):
                self.launches.append(self.out_of_range)

    def read_flag(self) -> None:
        self.rt.cl.enqueue_copy(self.rt.queue, self.flag, self.err, is_blocking=True)
        if self.flag[0]:
            self.out_of_range()

    def out_of_range(self) -> None:
        raise ExecutionError(f"op #{self.op.index} {self.op.name}: an index is out of "
                             f"range [0, {self.limit}) on device {self.rt.name}")


@register("Gather")
class GatherLayer(IndexCheck):
    """Indices int16, int32 or int64 (as TFLite's Gather)."""
    index_at = (1,)
    index_types = frozenset(IDX_TYPE)

    @classmethod
    def check_params(cls, op, graph):
        if int(op.params.get("batch_dims", 0)) != 0:
            return False, "acl_cl Gather supports batch_dims 0 only"
        return True, ""

    def setup(self) -> None:
        x, idx, y = self.inputs[0], self.inputs[1], self.outputs[0]
        axis = int(self.op.params.get("axis", 0))
        if not -len(x.shape) <= axis < len(x.shape):
            raise self.fail(f"axis {axis} out of range for rank {len(x.shape)}")
        axis %= len(x.shape)
        inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
        if y.size:
            self.checked_gather(x, idx, y, x.shape[axis], max(idx.size, 1), inner)


@register("EmbeddingLookup")
class EmbeddingLookupLayer(IndexCheck):
    """inputs (ids int32, table)."""
    index_at = (0,)

    def setup(self) -> None:
        ids, table, y = self.inputs[0], self.inputs[1], self.outputs[0]
        inner = int(np.prod(table.shape[1:], dtype=np.int64))
        if y.size:
            self.checked_gather(table, ids, y, table.shape[0], ids.size, inner)


COMPARE = {"EQUAL": 0, "NOT_EQUAL": 1, "GREATER": 2, "GREATER_EQUAL": 3, "LESS": 4,
           "LESS_EQUAL": 5}


class BroadcastLayer(ClKernel):
    """y = a (op) b with broadcasting over rank <= 6: `kernel_name` of extra.cl, `code()`."""

    kernel_name: str

    def code(self) -> int:
        raise NotImplementedError

    def setup(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        if len(y.shape) > 6:
            raise self.fail("broadcasting over rank > 6")
        self.meta = self.const_buffer(bcast_meta(a.shape, b.shape, y.shape))
        self.launch(self.kernel("extra.cl", self.kernel_name), (y.size,), None, a.buffer,
                    b.buffer, y.buffer, self.meta, np.int32(self.code()), np.int32(y.size))


@register(*(f"Comparison.{k}" for k in COMPARE))
class ComparisonLayer(BroadcastLayer):
    out_types = BOOL
    kernel_name = "compare_bcast"

    def code(self) -> int:
        return COMPARE[self.op.subtype]


@register("ElementwiseBinary.LOGICAL_AND", "ElementwiseBinary.LOGICAL_OR")
class LogicalLayer(BroadcastLayer):
    in_types = out_types = BOOL
    kernel_name = "logical_bcast"

    def code(self) -> int:
        return self.op.subtype == "LOGICAL_OR"


@register("OneHot")
class OneHotLayer(ClKernel):
    """inputs (indices int32, depth, on_value, off_value); an index out of [0, depth) gives
    off_value everywhere on its row, as in TFLite."""
    index_at = (0,)
    params_at = (1,)

    def setup(self) -> None:
        idx, y = self.inputs[0], self.outputs[0]
        axis = int(self.op.params.get("axis", -1)) % len(y.shape)
        depth = y.shape[axis]
        inner = int(np.prod(y.shape[axis + 1:], dtype=np.int64))
        if y.size:
            self.launch(self.kernel("extra.cl", "one_hot"), (y.size,), None, idx.buffer,
                        y.buffer, self.inputs[2].buffer, self.inputs[3].buffer,
                        np.int32(depth), np.int32(inner), np.int32(y.size))
