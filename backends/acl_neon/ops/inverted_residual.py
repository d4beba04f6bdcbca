"""InvertedResidual on acl_neon: the MobileNet block that the compiler fused from the ops
acl_neon proposed (backends/acl_neon/fusion.py) — [1x1 expand CONV_2D, or the stem CONV_2D,
[swish or hard-swish]] -> DEPTHWISE_CONV_2D [swish or hard-swish] -> [1x1 project CONV_2D ->
[residual ADD]] — as one native plan of module _gemm (csrc/gemm/inverted_residual.h). The
activations after a convolution are its epilogues (conv_epilogue.py's kinds); without a project
the block's output is the depthwise's. It is computed output row by output row, so the expanded
tensor and the depthwise output live only in a few rows of per-thread scratch, with the
unfused kernels' arithmetic in their order: the results are bit-identical to the ops run one by
one (conv2d.py, depthwise_conv2d.py, eltwise.py).

A zero PAD in front of the depthwise or the stem (role "pad") is that convolution's padding: the
op then reads the PAD's input, the padding grown by the PAD's top and left amounts.

The op's params name its members: `roles` (of "pad", "stem", "expand", "depthwise", "project",
"add") and `fused_ops` (the original Operations, in that order; core/compiler/fusion.py), whose
operands are this op's inputs (weights included) or, for the inner tensors, `fused_operands`.
"""
from __future__ import annotations

import numpy as np

from ....core.backend import Kernel
from ....core.ops.window import conv_geometry
from .base import NeonMixin, clamp_range, register
from .conv_epilogue import EPILOGUES


@register("InvertedResidual")
class InvertedResidualLayer(NeonMixin, Kernel):
    native_group = "gemm"

    def prepare(self) -> None:
        p = self.op.params
        ops = dict(zip(p.roles, p.fused_ops))
        where = {o: k for k, o in enumerate(self.op.inputs)}

        def const(op, k: int):
            i = op.inputs[k] if k < len(op.inputs) else -1
            if i < 0:
                return None
            return np.ascontiguousarray(self.inputs[where[i]].buffer, np.float32)

        def act(op) -> list[float]:
            return list(clamp_range(op.params.get("fused_activation_function")))

        dw, project = ops["depthwise"], ops.get("project")
        stem, expand, add = ops.get("stem"), ops.get("expand"), ops.get("add")
        pad = ops.get("pad")
        x, y = self.inputs[0], self.outputs[0]
        cin = int(x.shape[3])
        # a folded PAD: the first convolution reads the PAD's input, its padding grown by the
        # PAD's top and left rows (the bottom and right ones lie past the input, as padding)
        top, left = (0, 0) if pad is None else \
            (int(v) for v in const(pad, 1).reshape(4, 2)[1:3, 0])
        n, h, w = (int(d) for d in self.shape_of(dw.inputs[0])[:3])   # the depthwise input's
        k = int(self.shape_of(dw.inputs[1])[1])
        e_shape = (n, h, w, int(self.shape_of(dw.inputs[1])[3]))
        g = conv_geometry(dw.params, e_shape, (k, k), self.shape_of(dw.outputs[0]))
        pt, pl = g.pt, g.pl
        if pad is not None and stem is None:
            h, w, pt, pl = int(x.shape[1]), int(x.shape[2]), pt + top, pl + left
        geometry = [n, h, w, cin, g.c, k, g.sh, g.sw, pt, pl, g.oh, g.ow, int(y.shape[3])]
        stem_geometry = None
        if stem is not None:
            sw = self.shape_of(stem.inputs[1])
            s = conv_geometry(stem.params, self.shape_of(stem.inputs[0]), sw[1:3], e_shape)
            stem_geometry = [s.n, int(x.shape[1]), int(x.shape[2]), s.c, s.kh, s.kw, s.sh, s.sw,
                             s.dh, s.dw, s.pt + top, s.pl + left, s.oh, s.ow, int(sw[0])]
        first = expand or stem
        none = [-np.inf, np.inf]
        clamps = ((act(first) if first else none) + act(dw) + (act(project) if project else none)
                  + (act(add) if add else none))

        def epilogue(conv: str) -> list[float]:
            """(kind, lo, hi) of the activation ops after `conv` (conv_epilogue.py's)."""
            if f"{conv}_hard_swish" in ops:
                return [EPILOGUES["hard_swish"], *none]
            if f"{conv}_mul" in ops:
                return [EPILOGUES["swish"], *act(ops[f"{conv}_mul"])]
            return [0, *none]
        try:
            self.plan = self.lib.InvertedResidualPlan(
                geometry, const(expand, 1) if expand else None,
                const(expand, 2) if expand else None, const(dw, 1), const(dw, 2),
                const(project, 1) if project else None, const(project, 2) if project else None,
                clamps, add is not None, stem_weights=const(stem, 1) if stem else None,
                stem_bias=const(stem, 2) if stem else None, stem_geometry=stem_geometry,
                epilogues=epilogue("expand") + epilogue("depthwise"))
        except ValueError as e:
            raise self.fail(str(e)) from None

    def shape_of(self, operand: int) -> tuple[int, ...]:
        """The shape of a member's operand: an input of this op or an inner tensor."""
        if operand in self.op.inputs:
            return tuple(self.inputs[self.op.inputs.index(operand)].shape)
        return tuple(self.op.params.fused_operands[operand].shape)
