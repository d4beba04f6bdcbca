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
        # The target shape (shape input, axis) is already in the output's shape: the shape
        # rule computed it, at run time for a computed shape input (dynamic output).
        if not self.dynamic and self.inputs[0].nbytes != self.outputs[0].nbytes:
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
        self.perm = None      # a computed permutation is read in every run
        if perm.is_constant:
            self.perm = [int(p) for p in perm.buffer.reshape(-1)]
            rank = len(self.inputs[0].shape)
            if not self.inputs[0].is_dynamic and sorted(self.perm) != list(range(rank)):
                raise self.fail(f"perm {self.perm} is not a permutation of the input's "
                                f"{rank} axes")

    def prepare(self) -> None:
        self.src = None if self.perm is None else self.buf(0).transpose(self.perm)

    def run(self) -> None:
        if self.src is not None:
            np.copyto(self.out, self.src)
            return
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        perm = [int(p) for p in self.inputs[1].buffer.reshape(-1)]
        if sorted(perm) != list(range(x.ndim)):
            raise ValueError(f"perm {perm} is not a permutation of the input's {x.ndim} axes")
        src = x.transpose(perm)
        if src.shape != out.shape:
            raise ValueError(f"transposed shape {src.shape}, the output holds {out.shape}")
        np.copyto(out, src)


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
        self.pads = None      # computed paddings are read in every run
        if pads.is_constant:
            self.pads = pads.buffer.reshape(-1, 2).astype(np.int64)
            if (self.pads < 0).any():
                raise self.fail(f"negative paddings {self.pads.tolist()}")
        value = self.inputs[2] if len(self.inputs) > 2 else None
        q = self.inputs[0].quant
        self.value = None     # a computed constant_values is read in every run
        if value is None:
            self.value = int(q.zero_point[0]) if q is not None else 0
        elif value.is_constant:
            self.value = value.buffer.reshape(()).item()

    def interior_of(self, pads: np.ndarray) -> np.ndarray:
        x, out = self.buf(0), self.out
        if pads.shape != (x.ndim, 2) or (pads < 0).any() or \
                tuple(int(d + a + b) for d, (a, b) in zip(x.shape, pads)) != out.shape:
            raise ValueError(f"paddings {pads.tolist()} do not take {x.shape} to {out.shape}")
        return out[tuple(slice(int(a), int(a) + d) for (a, _), d in zip(pads, x.shape))]

    def prepare(self) -> None:
        try:
            self.interior = None if self.pads is None else self.interior_of(self.pads)
        except ValueError as e:
            raise self.fail(str(e)) from None

    def run(self) -> None:
        interior = self.interior
        if interior is None:
            interior = self.interior_of(self.inputs[1].buffer.reshape(-1, 2).astype(np.int64))
        value = self.value if self.value is not None else self.buf(2).reshape(()).item()
        self.out.fill(value)
        np.copyto(interior, self.buf(0))


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
