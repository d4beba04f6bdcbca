"""OneHot on acl_cl (indexing.cl one_hot)."""
from __future__ import annotations

import numpy as np

from .common import ClKernel, register


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
            self.launch(self.kernel("indexing.cl", "one_hot"), (y.size,), None, idx.buffer,
                        y.buffer, self.inputs[2].buffer, self.inputs[3].buffer,
                        np.int32(depth), np.int32(inner), np.int32(y.size))
