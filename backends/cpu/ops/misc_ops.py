"""Data movement and small ops: RANK, BROADCAST_ARGS, MIRROR_PAD, REVERSE_V2,
REVERSE_SEQUENCE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, MATRIX_DIAG, MATRIX_SET_DIAG.
Arithmetic ones (ADD_N, CUMSUM, BUCKETIZE, BITWISE_XOR, RIGHT_SHIFT, L2_NORMALIZATION,
LOCAL_RESPONSE_NORMALIZATION) live in misc_math.

Parameter inputs (axes, paddings, block shapes, ...) are read in run(): they may be graph
inputs whose values change between runs."""
from __future__ import annotations

import numpy as np

from . import misc_math
from .common import register
from .slice_split import MoveKernel, copy_checked

__all__ = ["misc_math"]   # its kernels register on import


def ints(a: np.ndarray) -> list[int]:
    return [int(x) for x in np.asarray(a).reshape(-1)]


@register("Rank")
class RankLayer(MoveKernel):
    def validate(self) -> None:
        if self.outputs[0].dtype not in (np.int32, np.int64):
            raise self.fail(f"RANK gives int32, not {self.outputs[0].dtype}")

    def run(self) -> None:
        self.out[...] = len(self.inputs[0].shape)


@register("BroadcastArgs")
class BroadcastArgsLayer(MoveKernel):
    index_inputs = (0, 1)

    def run(self) -> None:
        a, b = tuple(ints(self.buf(0))), tuple(ints(self.buf(1)))
        try:
            shape = np.broadcast_shapes(a, b)
        except ValueError:
            raise ValueError(f"shapes {a} and {b} do not broadcast") from None
        copy_checked(self.out, np.array(shape, self.out.dtype))


@register("MirrorPad")
class MirrorPadLayer(MoveKernel):
    """REFLECT leaves the edge out of the mirrored part, SYMMETRIC repeats it."""

    index_inputs = (1,)

    def validate(self) -> None:
        super().validate()
        mode = self.op.params.get("mode", "REFLECT")
        if mode not in ("REFLECT", "SYMMETRIC", 0, 1):
            raise self.fail(f"unknown mirror pad mode {mode!r}")
        self.mode = "reflect" if mode in ("REFLECT", 0) else "symmetric"

    def run(self) -> None:
        x = self.buf(0)
        pads = self.buf(1).reshape(-1, 2).astype(np.int64)
        limit = 1 if self.mode == "symmetric" else 0
        for d, (lo, hi) in zip(x.shape, pads):
            if lo < 0 or hi < 0 or max(lo, hi) > d - 1 + limit:
                raise ValueError(f"mirror padding {pads.tolist()} too large for input {x.shape}")
        copy_checked(self.out, np.pad(x, [(int(a), int(b)) for a, b in pads], mode=self.mode))


@register("Reverse")
class ReverseLayer(MoveKernel):
    index_inputs = (1,)

    def run(self) -> None:
        x = self.buf(0)
        axes = ints(self.buf(1))
        if any(not -x.ndim <= a < x.ndim for a in axes):
            raise ValueError(f"axes {axes} out of range for rank {x.ndim}")
        copy_checked(self.out, np.flip(x, axis=tuple(a % x.ndim for a in axes)))


@register("ReverseSequence")
class ReverseSequenceLayer(MoveKernel):
    """Along seq_dim, the first seq_lengths[b] elements of batch b are reversed."""

    index_inputs = (1,)

    def validate(self) -> None:
        super().validate()
        self.seq_dim = int(self.op.params.get("seq_dim", 0))
        self.batch_dim = int(self.op.params.get("batch_dim", 0))

    def run(self) -> None:
        x, lens = self.buf(0), self.buf(1).reshape(-1).astype(np.int64)
        s, b = self.seq_dim % max(x.ndim, 1), self.batch_dim % max(x.ndim, 1)
        if s == b or lens.size != x.shape[b]:
            raise ValueError(f"seq_dim {self.seq_dim}, batch_dim {self.batch_dim}, "
                             f"{lens.size} lengths do not fit input {x.shape}")
        if lens.size and (lens.min() < 0 or lens.max() > x.shape[s]):
            raise ValueError(f"sequence lengths {lens.tolist()} exceed dim {x.shape[s]}")
        j = np.arange(x.shape[s])
        lens_b = lens[:, None]
        idx = np.where(j[None, :] < lens_b, lens_b - 1 - j[None, :], j[None, :])  # [B, S]
        if b > s:
            idx = idx.T
        shape = [1] * x.ndim
        shape[b], shape[s] = x.shape[b], x.shape[s]
        idx = np.broadcast_to(idx.reshape(shape), x.shape)
        copy_checked(self.out, np.take_along_axis(x, idx, axis=s))


def check_block(block: list[int], pads: np.ndarray, shape: tuple) -> None:
    """SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND: one (before, after) pair per block dim, at most
    rank - 1 block dims, positive block sizes."""
    if len(block) != pads.shape[0] or len(block) > len(shape) - 1 or min(block, default=1) < 1:
        raise ValueError(f"block_shape {block} / {pads.tolist()} do not fit input {shape}")


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
    index_inputs = (1, 2)

    def params(self) -> tuple[list[int], np.ndarray]:
        x = self.buf(0)
        block = ints(self.buf(1))
        pads = self.buf(2).reshape(-1, 2).astype(np.int64)
        check_block(block, pads, x.shape)
        return block, pads


@register("SpaceToBatchND")
class SpaceToBatchNDLayer(BlockKernel):
    """Pads the spatial dims (with the zero point when quantized), then moves each block
    offset into the batch."""

    def run(self) -> None:
        x = self.buf(0)
        block, pads = self.params()
        q = self.outputs[0].quant
        fill = int(q.zero_point.reshape(-1)[0]) if q is not None and x.dtype.kind in "iu" else 0
        copy_checked(self.out, space_to_batch(x, block, pads, fill))


@register("BatchToSpaceND")
class BatchToSpaceNDLayer(BlockKernel):
    """The inverse of SPACE_TO_BATCH_ND, then crops the spatial dims."""

    def run(self) -> None:
        block, crops = self.params()
        copy_checked(self.out, batch_to_space(self.buf(0), block, crops))


def _set_diagonal(out: np.ndarray, d: np.ndarray) -> None:
    """out[..., i, i] = d[..., i] for i < d.shape[-1]."""
    i = np.arange(d.shape[-1])
    out[..., i, i] = d


@register("MatrixDiag")
class MatrixDiagLayer(MoveKernel):
    """[..., N] -> [..., N, N] with the input on the diagonal, zeros elsewhere."""

    def validate(self) -> None:
        self.check_same_dtype(0)

    def run(self) -> None:
        x, out = self.buf(0), self.out
        if x.ndim < 1 or out.shape != x.shape + x.shape[-1:]:
            raise ValueError(f"input {x.shape} does not fit output {out.shape}")
        out.fill(0)
        _set_diagonal(out, x)


@register("MatrixSetDiag")
class MatrixSetDiagLayer(MoveKernel):
    """[..., M, N] with the main diagonal replaced by [..., min(M, N)]."""

    def validate(self) -> None:
        self.check_same_dtype(0)
        if self.inputs[1].dtype != self.inputs[0].dtype:
            raise self.fail("input and diagonal differ in dtype")

    def run(self) -> None:
        x, d, out = self.buf(0), self.buf(1), self.out
        if x.ndim < 2 or d.shape != x.shape[:-2] + (min(x.shape[-2:]),):
            raise ValueError(f"diagonal {d.shape} does not fit input {x.shape}")
        copy_checked(out, x)
        _set_diagonal(out, d)

