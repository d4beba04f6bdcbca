"""Conv2DEpilogue and DepthwiseConv2DEpilogue on acl_neon: a CONV_2D or DEPTHWISE_CONV_2D and
the activation after it that the compiler fused into it (backends/acl_neon/folds.py,
`propose_epilogues`):

    "swish":      LOGISTIC of the convolution output, then MUL of the output by it (the MUL's
                  fused clamp `epilogue_activation` included), as EfficientNet writes swish;
    "hard_swish": HARD_SWISH of the convolution output (MobileNetV3).

The fused op has the convolution's inputs, params and kernel (conv2d.py's packed GEMM,
depthwise_conv2d.py's spatial rows) and the last op's output; its plan applies the activation
to each tile (GEMM, csrc/gemm/gemm_driver.h) or output row (depthwise, csrc/spatial) just
stored, while in cache, with the arithmetic of the eltwise kernels that run these ops apart
(csrc/common/epilogue.h): results are bit-identical to `fuse: false`.
"""
from __future__ import annotations

from .base import clamp_range, register
from .conv2d import Conv2DLayer
from .depthwise_conv2d import DepthwiseConv2DLayer

EPILOGUES = {"swish": 1, "hard_swish": 2}     # the native kinds (common/epilogue.h)


class FusedEpilogue:
    """Mixed in before the convolution's kernel: its plan gets the fused activation."""

    def epilogue(self) -> tuple:
        p = self.op.params
        if p.get("epilogue") not in EPILOGUES:
            raise self.fail(f"epilogue {p.get('epilogue')!r} is not one of {sorted(EPILOGUES)}")
        return (EPILOGUES[p.epilogue], *clamp_range(p.get("epilogue_activation")))


@register("Conv2DEpilogue")
class Conv2DEpilogueLayer(FusedEpilogue, Conv2DLayer):
    pass


@register("DepthwiseConv2DEpilogue")
class DepthwiseConv2DEpilogueLayer(FusedEpilogue, DepthwiseConv2DLayer):
    pass
