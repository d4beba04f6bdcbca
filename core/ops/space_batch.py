"""SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND (TFLite's space_to_batch_nd.cc,
batch_to_space_nd.cc): the block geometry (`block_params`, `space_to_batch`, `batch_to_space`,
NumPy expressions that every backend applies: cpu to the data, acl_cl to element numbers) and
the kernels' parameters. Block shapes and paddings/crops are read in every run (they may be
graph inputs). Quantized SPACE_TO_BATCH_ND needs the output's zero point (and scale) to equal
the input's (space_to_batch_nd.cc Prepare); the padding is that zero point."""
from __future__ import annotations

import numpy as np

from .movement import MoveKernel, ints
from .quant_base import QuantOpKernel


def block_params(block, pads, shape: tuple) -> tuple[list[int], np.ndarray]:
    """SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND's (block_shape, paddings or crops as [m, 2] int64)
    from their tensors' values, checked against an input of `shape`: one (before, after) pair
    per block dim, at most rank - 1 block dims, positive block sizes; ValueError otherwise."""
    block = ints(block)
    pads = np.asarray(pads).reshape(-1, 2).astype(np.int64)
    if len(block) != pads.shape[0] or len(block) > len(shape) - 1 or min(block, default=1) < 1:
        raise ValueError(f"block_shape {block} / {pads.tolist()} do not fit input {shape}")
    return block, pads


def space_to_batch(x: np.ndarray, block: list[int], pads: np.ndarray, fill) -> np.ndarray:
    """Pads the spatial dims with `fill`, then moves each block offset into the batch: output
    batch (o_1 * b_2 + o_2 ...) * B + n."""
    m = len(block)
    if min(pads.reshape(-1), default=0) < 0:
        raise ValueError(f"negative paddings {pads.tolist()}")
    width = [(0, 0)] + [(int(a), int(b)) for a, b in pads] + [(0, 0)] * (x.ndim - 1 - m)
    p = np.pad(x, width, constant_values=fill)
    shape = [p.shape[0]]
    for k, bk in enumerate(block):
        if p.shape[1 + k] % bk:
            raise ValueError(f"padded dim {p.shape[1 + k]} is no multiple of block {bk}")
        shape += [p.shape[1 + k] // bk, bk]
    rest = list(p.shape[1 + m:])
    perm = [2 + 2 * k for k in range(m)] + [0] + [1 + 2 * k for k in range(m)] + \
        list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    t = p.reshape(shape + rest).transpose(perm)
    return t.reshape([p.shape[0] * int(np.prod(block))] + [shape[1 + 2 * k] for k in range(m)]
                     + rest)


def batch_to_space(x: np.ndarray, block: list[int], crops: np.ndarray) -> np.ndarray:
    """The inverse of space_to_batch, then crops the spatial dims (a view of `x`)."""
    m, prod = len(block), int(np.prod(block))
    if x.shape[0] % prod:
        raise ValueError(f"batch {x.shape[0]} is no multiple of block size {prod}")
    n = x.shape[0] // prod
    spatial, rest = list(x.shape[1:1 + m]), list(x.shape[1 + m:])
    perm = [m]
    for k in range(m):
        perm += [m + 1 + k, k]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    t = x.reshape(block + [n] + spatial + rest).transpose(perm).reshape(
        [n] + [s * b for s, b in zip(spatial, block)] + rest)
    idx = [slice(None)]
    for k in range(m):
        lo, hi = int(crops[k, 0]), int(crops[k, 1])
        if lo < 0 or hi < 0 or lo + hi > t.shape[1 + k]:
            raise ValueError(f"crops {crops.tolist()} do not fit {t.shape}")
        idx.append(slice(lo, t.shape[1 + k] - hi))
    return t[tuple(idx)]


class BlockKernel(MoveKernel):
    """inputs (x, block_shape, paddings or crops)."""

    index_inputs = (1, 2)

    def params(self) -> tuple[list[int], np.ndarray]:
        """`block_params` of the current inputs."""
        return block_params(self.buf(1), self.buf(2), self.buf(0).shape)


class SpaceToBatchNDBase(BlockKernel):
    def pad_value(self) -> int:
        """The padding: the output's zero point when quantized (an integer tensor), else 0."""
        q = self.outputs[0].quant
        return int(q.zero_point.reshape(-1)[0]) if q is not None and \
            self.out.dtype.kind in "iu" else 0


class BatchToSpaceNDBase(BlockKernel):
    pass


class QSpaceToBatchNDBase(QuantOpKernel, SpaceToBatchNDBase):
    def validate(self) -> None:
        SpaceToBatchNDBase.validate(self)
        self.check_same_quant(self.inputs[0], self.outputs[0])


__all__ = ["block_params", "space_to_batch", "batch_to_space", "BlockKernel",
           "SpaceToBatchNDBase", "BatchToSpaceNDBase", "QSpaceToBatchNDBase"]
