"""Gather and EmbeddingLookup on acl_cl (indexing.cl gather_axis). Computed indices are read on the
device; an index out of range fails the run as it fails TFLite's invoke: the kernel raises a
flag that run() reads back (one small blocking read per such op). Constant indices are checked
once on the host instead."""
from __future__ import annotations

import numpy as np

from ....errors import ExecutionError
from .common import ByteKernel, register

IDX_TYPE = {np.dtype(np.int16): "short", np.dtype(np.int32): "int", np.dtype(np.int64): "long"}


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
        self.launch(self.kernel("indexing.cl", "gather_axis", opts), (y.size,),
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
