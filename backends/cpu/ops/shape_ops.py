"""Data movement: RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, CONCATENATION, PAD,
DEPTH_TO_SPACE, SPACE_TO_DEPTH."""
from __future__ import annotations

import numpy as np

from .common import ANY, CpuKernel, activation, register


@register("Reshape", "Squeeze", "ExpandDims")
class ReshapeLayer(CpuKernel):
    dtypes = ANY
    quantized = True

    def validate(self) -> None:
        if self.inputs[0].nbytes != self.outputs[0].nbytes:
            raise self.fail(f"cannot reshape {self.inputs[0].shape} to {self.outputs[0].shape}")

    def prepare(self) -> None:
        self.src = self.buf(0).reshape(self.out.shape)

    def run(self) -> None:
        np.copyto(self.outputs[0].buffer, self.src)


@register("Transpose")
class TransposeLayer(CpuKernel):
    dtypes = ANY
    quantized = True

    def validate(self) -> None:
        perm = self.inputs[1]
        if not perm.is_constant:
            raise self.fail("a non-constant permutation needs dynamic shapes (not yet supported)")
        self.perm = [int(p) for p in perm.buffer.reshape(-1)]
        if sorted(self.perm) != list(range(len(self.inputs[0].shape))):
            raise self.fail(f"perm {self.perm} is not a permutation of the input's "
                            f"{len(self.inputs[0].shape)} axes")

    def prepare(self) -> None:
        self.src = self.buf(0).transpose(self.perm)

    def run(self) -> None:
        np.copyto(self.out, self.src)


@register("Concat")
class ConcatLayer(CpuKernel):
    dtypes = ANY

    def validate(self) -> None:
        rank = len(self.outputs[0].shape)
        self.axis = self.op.params.axis % max(rank, 1)
        self.act = activation(self.op.params.get("fused_activation_function"))

    def prepare(self) -> None:
        self.srcs = [t.buffer for t in self.inputs]

    def run(self) -> None:
        np.concatenate(self.srcs, axis=self.axis, out=self.out)
        if self.act is not None:
            self.act(self.out)


@register("Pad", "PadV2")
class PadLayer(CpuKernel):
    dtypes = ANY
    quantized = True

    def validate(self) -> None:
        pads = self.inputs[1]
        if not pads.is_constant:
            raise self.fail("non-constant paddings need dynamic shapes (not yet supported)")
        self.pads = pads.buffer.reshape(-1, 2).astype(np.int64)
        if (self.pads < 0).any():
            raise self.fail(f"negative paddings {self.pads.tolist()}")
        value = self.buf(2) if len(self.inputs) > 2 else None
        q = self.inputs[0].quant
        self.value = value.reshape(()).item() if value is not None else (
            int(q.zero_point[0]) if q is not None else 0)

    def prepare(self) -> None:
        self.interior = self.out[tuple(slice(int(a), int(a) + d)
                                       for (a, _), d in zip(self.pads, self.buf(0).shape))]

    def run(self) -> None:
        self.out.fill(self.value)
        np.copyto(self.interior, self.buf(0))


@register("DepthToSpace")
class DepthToSpaceLayer(CpuKernel):
    dtypes = ANY
    quantized = True

    def prepare(self) -> None:
        n, h, w, c = self.buf(0).shape
        b = self.op.params.block_size
        self.src = self.buf(0).reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
        self.dst = self.out.reshape(n, h, b, w, b, c // (b * b))

    def run(self) -> None:
        np.copyto(self.dst, self.src)


@register("SpaceToDepth")
class SpaceToDepthLayer(CpuKernel):
    dtypes = ANY
    quantized = True

    def prepare(self) -> None:
        n, h, w, c = self.buf(0).shape
        b = self.op.params.block_size
        self.src = self.buf(0).reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
        self.dst = self.out.reshape(n, h // b, w // b, b, b, c)

    def run(self) -> None:
        np.copyto(self.dst, self.src)
