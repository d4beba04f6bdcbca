"""Quantized forms of data-movement kernels where TFLite's Prepare is stricter than a plain
copy: SPACE_TO_BATCH_ND needs the output's zero point (and scale) to equal the input's
(space_to_batch_nd.cc; the padding is that zero point), and SPACE_TO_DEPTH / DEPTH_TO_SPACE
take int8 and uint8 but not int16. Values move unchanged (the float kernels' code)."""
from __future__ import annotations

from ..misc_ops import SpaceToBatchNDLayer
from ..shape_ops import DepthToSpaceLayer, SpaceToDepthLayer
from .base import I8, U8, QuantKernel, quantized, register


@register("SpaceToBatchND", when=quantized)
class QSpaceToBatchND(QuantKernel, SpaceToBatchNDLayer):
    def validate(self) -> None:
        SpaceToBatchNDLayer.validate(self)
        self.check_same_quant(self.inputs[0], self.outputs[0])


@register("SpaceToDepth", when=quantized)
class QSpaceToDepth(QuantKernel, SpaceToDepthLayer):
    dtypes = frozenset({I8, U8})


@register("DepthToSpace", when=quantized)
class QDepthToSpace(QuantKernel, DepthToSpaceLayer):
    dtypes = frozenset({I8, U8})
