"""MobileNet-like float models of inverted-residual blocks ([1x1 expand CONV_2D [activation]]
-> DEPTHWISE_CONV_2D [activation] -> [1x1 project CONV_2D -> [residual ADD]]), optionally after
a stem CONV_2D over few channels, for acl_neon's fusion tests. The activation ops after a
convolution (`tails`): "swish" (LOGISTIC, then MUL of the output by it), "swish_relu6" (the
MUL with a RELU6), "hard_swish" (HARD_SWISH), "" none."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from onert_py.model_builder import ModelBuilder


@dataclass(frozen=True)
class Block:
    expand: int | None            # expanded channels (None: no expand conv)
    out: int                      # project output channels
    k: int = 3                    # depthwise filter size
    stride: int = 1
    residual: bool = False        # ADD of the block input (needs stride 1, out = input channels)
    acts: tuple[str, str, str] = ("RELU6", "RELU6", "NONE")    # expand, depthwise, project
    padding: str = "SAME"
    add_first: bool = False       # ADD(project, x) rather than ADD(x, project)
    add_act: str = "NONE"
    pad: tuple[int, int, int, int] | None = None   # a PAD (top, bottom, left, right) before
                                                   # the depthwise
    tails: tuple[str, str] = ("", "")   # activation ops after the expand and the depthwise
    project: bool = True          # False: the block ends with the depthwise (and its tail),
                                  # whose output is also a model output (EfficientNet's blocks
                                  # end there: their SE gate reads it)


# every form the fused kernel covers: no expand, stride 1 and 2, 3x3 and 5x5, residual in
# both operand orders, other clamps, VALID padding
BLOCKS = (
    Block(None, 6),
    Block(24, 10, stride=2),
    Block(30, 10, residual=True),
    Block(40, 10, k=5, residual=True, acts=("RELU", "RELU", "NONE"), add_first=True,
          add_act="RELU6"),
    Block(20, 12, stride=2, padding="VALID", acts=("RELU6", "RELU_N1_TO_1", "RELU")),
    Block(36, 12, k=5, stride=2),
)


def out_size(size: int, k: int, stride: int, padding: str) -> int:
    return -(-size // stride) if padding == "SAME" else (size - k) // stride + 1


@dataclass(frozen=True)
class Stem:
    out: int                      # output channels
    k: int = 3
    stride: int = 2
    act: str = "RELU6"
    padding: str = "SAME"
    tail: str = ""                # activation ops after it


def block_model(blocks=BLOCKS, batch: int = 2, h: int = 19, w: int = 13, cin: int = 8,
                extra_output: tuple[int, str] | None = None,
                stem: Stem | None = None,
                pad: tuple[int, int, int, int] | None = None) -> tuple[bytes, list[list[int]]]:
    """The model (input (batch, h, w, cin), one output) and, per block, its op indices in the
    order expand, depthwise, project, add (those present). `extra_output` (block, "expand" |
    "depthwise" | "project" | "stem" | "pad") also makes that inner tensor a model output.
    `stem`: a k x k CONV_2D first, whose output the blocks read; its op index heads the first
    block's. `pad` (top, bottom, left, right): a PAD of the model input first (read by the stem,
    or by the first block, which then has no expand), its op index heading the first block's."""
    rng = np.random.default_rng(7)
    b = ModelBuilder()
    x = b.add_input("x", (batch, h, w, cin), "float32")
    ops: list[list[int]] = []
    extra = None
    block_ops: list[int] = []
    pad_ops: list[int] = []
    if pad is not None:
        t, bo, le, ri = pad
        h, w = h + t + bo, w + le + ri
        y = b.add_tensor("pad", (batch, h, w, cin), "float32")
        pv = b.add_const("pad_amounts", np.array([[0, 0], [t, bo], [le, ri], [0, 0]], np.int32))
        pad_ops.append(b.add_op("PAD", [x, pv], [y]))
        if extra_output == (0, "pad"):
            extra = y
        x = y

    def const(name: str, shape) -> int:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        data = rng.standard_normal(shape).astype(np.float32) / np.sqrt(fan_in)
        return b.add_const(name, data.astype(np.float32))

    def conv(name: str, src: int, c: int, shape, cout: int, act: str) -> int:
        y = b.add_tensor(name, (*shape[:3], cout), "float32")
        block_ops.append(b.add_op("CONV_2D", [src, const(name + "_w", (cout, 1, 1, c)),
                                         const(name + "_b", (cout,))], [y], padding="SAME",
                            stride_h=1, stride_w=1, fused_activation_function=act))
        return y

    def tail(kind: str, y: int, shape) -> int:
        """The activation ops `kind` after the op that wrote `y` (module docstring)."""
        if not kind:
            return y
        out = b.add_tensor(f"t{y}_{kind}", shape, "float32")
        if kind == "hard_swish":
            block_ops.append(b.add_op("HARD_SWISH", [y], [out]))
            return out
        s_ = b.add_tensor(f"t{y}_sigmoid", shape, "float32")
        block_ops.append(b.add_op("LOGISTIC", [y], [s_]))
        block_ops.append(b.add_op("MUL", [y, s_], [out], fused_activation_function="RELU6"
                                  if kind == "swish_relu6" else "NONE"))
        return out

    shape = (batch, h, w, cin)
    stem_ops: list[int] = pad_ops
    if stem is not None:
        oh, ow = (out_size(v, stem.k, stem.stride, stem.padding) for v in (h, w))
        y = b.add_tensor("stem", (batch, oh, ow, stem.out), "float32")
        stem_ops.append(b.add_op("CONV_2D", [x, const("stem_w", (stem.out, stem.k, stem.k, cin)),
                                             const("stem_b", (stem.out,))], [y],
                                 padding=stem.padding, stride_h=stem.stride,
                                 stride_w=stem.stride, fused_activation_function=stem.act))
        if extra_output == (0, "stem"):
            extra = y
        shape = (batch, oh, ow, stem.out)
        block_ops = stem_ops              # (tail's ops join the stem's)
        x = tail(stem.tail, y, shape)
    lone_outputs = []
    for n, blk in enumerate(blocks):
        block_ops = stem_ops if n == 0 else []
        t, c = x, shape[3]
        inner = {}
        if blk.expand is not None:
            t = inner["expand"] = conv(f"b{n}_expand", x, c, shape, blk.expand, blk.acts[0])
            c = blk.expand
            t = tail(blk.tails[0], t, (*shape[:3], c))
        dh, dw_ = shape[1:3]
        if blk.pad is not None:
            t_, b_, l_, r_ = blk.pad
            dh, dw_ = dh + t_ + b_, dw_ + l_ + r_
            padded = b.add_tensor(f"b{n}_pad", (batch, dh, dw_, c), "float32")
            amounts = b.add_const(f"b{n}_pad_amounts",
                                  np.array([[0, 0], [t_, b_], [l_, r_], [0, 0]], np.int32))
            block_ops.append(b.add_op("PAD", [t, amounts], [padded]))
            t = padded
        oh, ow = (out_size(s, blk.k, blk.stride, blk.padding) for s in (dh, dw_))
        d = inner["depthwise"] = b.add_tensor(f"b{n}_dw", (batch, oh, ow, c), "float32")
        block_ops.append(b.add_op("DEPTHWISE_CONV_2D",
                            [t, const(f"b{n}_dw_w", (1, blk.k, blk.k, c)),
                             const(f"b{n}_dw_b", (c,))], [d], padding=blk.padding,
                            stride_h=blk.stride, stride_w=blk.stride, depth_multiplier=1,
                            fused_activation_function=blk.acts[1]))
        d = tail(blk.tails[1], d, (batch, oh, ow, c))
        if not blk.project:
            lone_outputs.append(d)
            ops.append(block_ops)
            x, shape = d, (batch, oh, ow, c)
            continue
        p = inner["project"] = conv(f"b{n}_project", d, c, (batch, oh, ow), blk.out,
                                    blk.acts[2])
        if blk.residual:
            y = b.add_tensor(f"b{n}_add", (batch, oh, ow, blk.out), "float32")
            block_ops.append(b.add_op("ADD", [p, x] if blk.add_first else [x, p], [y],
                                fused_activation_function=blk.add_act))
            p = y
        if extra_output is not None and extra_output[0] == n and extra_output[1] in inner:
            extra = inner[extra_output[1]]
        ops.append(block_ops)
        x, shape = p, (batch, oh, ow, blk.out)
    b.add_output(x)
    if extra is not None:
        b.add_output(extra)
    for y in lone_outputs:
        if y != x:
            b.add_output(y)
    return b.build(), ops


def block_inputs(batch: int = 2, h: int = 19, w: int = 13, cin: int = 8) -> list[np.ndarray]:
    return [np.random.default_rng(3).uniform(-1, 1, (batch, h, w, cin)).astype(np.float32)]
