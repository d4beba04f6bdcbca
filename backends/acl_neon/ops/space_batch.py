"""SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND on acl_neon: one native CopyPlan (see movement.py),
a strided copy per block offset; block shape and paddings/crops must be constant (checks:
core/ops/space_batch.py)."""
from __future__ import annotations

import itertools

from ....core.ops.space_batch import BatchToSpaceNDBase, QSpaceToBatchNDBase, SpaceToBatchNDBase
from .base import register, size
from .movement import NeonMove, item_bytes


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def block_windows(block: list[int], pads: list[tuple[int, int]], window_dims, strided_dims):
    """SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND's pairing, per block offset k (each combination):
    along spatial dim d, positions s in [lo, hi) of the blocked side (size window_dims[d])
    meet positions s * b_d + k_d - pad_d of the spatial side (size strided_dims[d]). Yields
    (k, blocked-side slices, spatial-side strided slices), both with a leading batch slice;
    offsets that meet nothing are skipped."""
    for combo in itertools.product(*(range(b) for b in block)):
        window, strided = [slice(None)], [slice(None)]
        for kk, b, (a, _), wd, sd in zip(combo, block, pads, window_dims, strided_dims):
            lo = max(0, _ceil_div(a - kk, b))
            hi = min(wd, _ceil_div(sd + a - kk, b))
            if hi <= lo:
                break
            start = lo * b + kk - a
            window.append(slice(lo, hi))
            strided.append(slice(start, start + (hi - lo - 1) * b + 1, b))
        else:
            yield combo, tuple(window), tuple(strided)


class NeonBlock(NeonMove):
    const_inputs = (1, 2)

    def block_params(self):
        block, pads = self.params()
        if (pads < 0).any():
            raise ValueError(f"negative paddings/crops {pads.tolist()}")
        return block, [(int(a), int(b)) for a, b in pads]


@register("SpaceToBatchND")
class SpaceToBatchNDLayer(NeonBlock, SpaceToBatchNDBase):
    """out[(k_1 .. k_m) * B + n, o_1 .. o_m, r] = padded x[n, o_1 b_1 + k_1, ..., r]: per block
    offset k, a strided slice of x into a window of the output; the padding is filled."""

    quantized_form = QSpaceToBatchNDBase
    requant_refusal = "acl_neon SPACE_TO_BATCH_ND needs equal input/output parameters"

    @classmethod
    def quant_inputs(cls, op) -> list[int]:
        return list(op.inputs[:1])

    def build(self) -> None:
        x, out = self.buf(0), self.out
        block, pads = self.block_params()
        m = len(block)
        padded = [d + a + b for d, (a, b) in zip(x.shape[1:1 + m], pads)]
        if any(p % b for p, b in zip(padded, block)):
            raise ValueError(f"padded dims {padded} are no multiples of block {block}")
        outs = [p // b for p, b in zip(padded, block)]
        rest = list(x.shape[1 + m:])
        if out.shape != tuple([x.shape[0] * size(block)] + outs + rest):
            raise ValueError(f"output {out.shape} does not fit input {x.shape}, block {block}")
        view = out.reshape(block + [x.shape[0]] + outs + rest)
        steps = []
        if any(a or b for a, b in pads):
            steps.append((None, 0, item_bytes(self.pad_value(), out.dtype), out))
        for combo, window, strided in block_windows(block, pads, outs, x.shape[1:1 + m]):
            steps.append((0, 0, x[strided], view[combo][window]))
        self.copy_plan([self.inputs[0]], [self.outputs[0]], steps)


@register("BatchToSpaceND")
class BatchToSpaceNDLayer(NeonBlock, BatchToSpaceNDBase):
    """out[n, s_1 b_1 + k_1 - crop_1, ..., r] = x[(k_1 .. k_m) * N + n, s_1 .. s_m, r]: per
    block offset k, a window of x into a strided slice of the output."""

    def build(self) -> None:
        x, out = self.buf(0), self.out
        block, crops = self.block_params()
        m, prod = len(block), size(block)
        if x.shape[0] % prod:
            raise ValueError(f"batch {x.shape[0]} is no multiple of block size {prod}")
        n = x.shape[0] // prod
        spatial, rest = list(x.shape[1:1 + m]), list(x.shape[1 + m:])
        full = [s * b - a - c for s, b, (a, c) in zip(spatial, block, crops)]
        if min(full, default=0) < 0 or out.shape != tuple([n] + full + rest):
            raise ValueError(f"output {out.shape} does not fit input {x.shape}, block {block}, "
                             f"crops {crops}")
        view = x.reshape(block + [n] + spatial + rest)
        steps = []
        for combo, window, strided in block_windows(block, crops, spatial, full):
            steps.append((0, 0, view[combo][window], out[strided]))
        self.copy_plan([self.inputs[0]], [self.outputs[0]], steps)
