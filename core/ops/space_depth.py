"""DEPTH_TO_SPACE and SPACE_TO_DEPTH (TFLite's depth_to_space.cc, space_to_depth.cc): NHWC
blocks of block_size x block_size move between the depth and the spatial dims. The geometry
(`depth_to_space`, `space_to_depth`: the input seen in the output's element order, as NumPy
views) is every backend's: cpu copies the view, acl_neon plans it, acl_cl applies it to
element numbers. Quantized forms take int8 and uint8 but not int16 (as TFLite)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .base import ANY, OpKernel
from .quant_base import I8, U8, QuantOpKernel


def depth_to_space(x: np.ndarray, b: int) -> np.ndarray:
    """NHWC `x` as [n, h, b, w, b, c / b^2] (a view): row-major, the output's elements."""
    n, h, w, c = x.shape
    return x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)


def space_to_depth(x: np.ndarray, b: int) -> np.ndarray:
    """NHWC `x` as [n, h / b, w / b, b, b, c] (a view): row-major, the output's elements."""
    n, h, w, c = x.shape
    return x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)


class BlockMoveBase(OpKernel):
    """prepare() gives `src`, the input seen in the output's element order (`geometry`: one of
    the functions above), and `dst`, the output in the same shape."""

    dtypes = ANY
    quantized = True
    geometry: Callable[[np.ndarray, int], np.ndarray]

    def prepare(self) -> None:
        self.src = self.geometry(self.buf(0), self.op.params.block_size)
        self.dst = self.out.reshape(self.src.shape)


class DepthToSpaceBase(BlockMoveBase):
    geometry = staticmethod(depth_to_space)


class SpaceToDepthBase(BlockMoveBase):
    geometry = staticmethod(space_to_depth)


class QDepthToSpaceBase(QuantOpKernel, DepthToSpaceBase):
    dtypes = frozenset({I8, U8})


class QSpaceToDepthBase(QuantOpKernel, SpaceToDepthBase):
    dtypes = frozenset({I8, U8})


__all__ = ["depth_to_space", "space_to_depth", "DepthToSpaceBase", "SpaceToDepthBase",
           "QDepthToSpaceBase", "QSpaceToDepthBase"]
