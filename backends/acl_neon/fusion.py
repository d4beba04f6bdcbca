"""The fusions acl_neon proposes to the compiler (IConfig.fusions; core/compiler/fusion.py).

MobileNet's inverted-residual block, float32 (kernel: ops/inverted_residual.py):

    [CONV_2D 1x1 expand, clamp] -> DEPTHWISE_CONV_2D 3x3 or 5x5 (clamp) -> CONV_2D 1x1 project
    -> [ADD of the block input]

found from each depthwise op: the expand is the producer of its input when that is a 1x1
stride-1 CONV_2D read by the depthwise alone; the project is the depthwise output's only
reader; the ADD is the project output's only reader when its other operand is the block input,
shaped alike. Each fused activation must be a clamp (NONE, RELU, RELU6, RELU_N1_TO_1), weights
and biases constant float32, the depthwise filter square with multiplier 1 and no dilation.
MobileNetV2's first block (no expand: depthwise -> project) is covered too, and with it the
network's stem when the stem produces the depthwise input alone: a CONV_2D over at most
`DIRECT_MAX_CIN` input channels with a window (the direct convolution's, csrc/gemm/
conv_direct.h), computed row by row into the block's ring in place of the expand
(["stem", "depthwise", "project"]): its 112x112x32 output (1.6 MB) is never written. Measured
on MobileNetV2 (trace self-times, minimum of 2-3 runs of 300): the stem and the first block
took 244 + 252 us apart, 468 fused at 1 thread; 157 + 128 against 268 at 2 threads.
The activation ops after the expand (or stem) and after the depthwise join the block too, as
those convolutions' epilogues (`activation_tail`: swish as LOGISTIC then MUL, or HARD_SWISH,
the kinds folds.py folds into a lone convolution), roles "expand_logistic", "expand_mul",
"expand_hard_swish" and "depthwise_..." alike. Where a squeeze-and-excitation gate sits
between the depthwise and the project (EfficientNet, MobileNetV3), the gate needs all of the
depthwise output before the project can run: the block then ends with the depthwise (no
project role), whose output is written whole, the expanded tensor still never. Such a block
pays only where the expanded tensor is large and the depthwise window small (`_lone_pays`):
each thread's band of rows starts by expanding again the rows the band above it read, which
the project's GEMM amortizes in a whole block but a lone depthwise does not. Measured on
EfficientNet-B0 (fused against the same ops as folds, trace self-times, minimum of 3 runs of
300, 1 / 2 threads): the stem + 112x112x32 depthwise 0.96x / 0.95x, the 112x112x96 expand
+ stride-2 depthwise 0.89x / 0.82x, 56x56x144 0.98x / 1.00x; but the 5x5 blocks 0.99x /
1.03-1.07x, the 14x14x672 ones 0.97x / 1.13x. So a block without project needs a 3x3
depthwise and LONE_MIN_EXPANDED_BYTES (1.5 MiB) expanded: the model runs 1.8% faster at 1
thread, 3.9% at 2 (in-process A/B, outputs identical).

A zero PAD of the rows and columns in front of the depthwise (between it and the expand, or
with no expand) or in front of the stem joins the block as role "pad" when that convolution
alone reads it (`_spatial_pad`): the padding of the convolution grows by the PAD's top and left
amounts, the bottom and right ones falling past its input, and the expand (whose output the
PAD alone read) computes its rows unpadded. The padded tensor is never written; the results
are bit-identical (the kernels skip the taps outside the input in the order they take the zero
ones, and a zero product leaves a sum unchanged). Not folded when an output row or column would
then read only padding (the fused kernel computes every output row from some input row).
pose_detection's stride-2 layers pad this way before a VALID convolution: five of its eight
PADs fold, four with the expand before them, one with the stem after it; the model runs 3.4%
faster at 1 thread, 3.6% at 2 (in-process A/B against the same model without them, outputs
identical).

Where it pays: the expanded tensor out of L2 (1 MiB a core on the Zen 4 machine this was
measured on; per block, fused against the same ops apart, interleaved, 1 thread, MobileNetV2):
112x112 and 56x56 blocks (1.6 to 4.8 MB expanded) 0.69 to 0.96x; 28x28 (0.6 MB) 0.91 to 1.09x;
14x14 and 7x7 1.01 to 1.06x, where the unfused GEMMs over the whole image tile better than
the rows of a narrow one. So blocks whose expanded tensor is under `MIN_EXPANDED_BYTES` are
not proposed. Since the GEMM's assembly tiles (gemm_tile12_avx512.h) the 28x28 blocks gain
too (trace self-times, 1 thread: 222, 221 and 161 us fused against 245, 229 and 155 apart; at
2 threads MobileNetV2 runs alike either way), so the bound is 512 KiB: 28x28x192 floats (588
KiB) fused, 14x14x576 (441 KiB) not.

The folds of an activation, a gate or a PAD into the pass of the op next to it:
folds.py.
"""
from __future__ import annotations

import numpy as np

from ...core.backend import FusionProposal
from ...core.ir import Graph, Operation
from ...core.ops.base import CLAMPS
from ...core.ops.window import conv_geometry

F32 = np.dtype(np.float32)
MIN_EXPANDED_BYTES = 1 << 19
LONE_MIN_EXPANDED_BYTES = 3 << 19  # a block without project: 3x3 depthwise, 1.5 MiB expanded
DIRECT_MAX_CIN = 16               # csrc/gemm/conv_direct.h kDirectMaxCin
# the activation ops after the expand (or stem) and the depthwise join as roles
# "<conv>_<op>", computed by the kernel as those convolutions' epilogues (activation_tail)
TAIL_ROLES = {"swish": ("logistic", "mul"), "hard_swish": ("hard_swish",)}
ROLES = ("pad", "stem", "expand", "expand_logistic", "expand_mul", "expand_hard_swish",
         "depthwise", "depthwise_logistic", "depthwise_mul", "depthwise_hard_swish", "project",
         "add")


def propose(graph: Graph, ops: list[int]) -> list[FusionProposal]:
    """The inverted-residual blocks among `ops` (acl_neon's ops of `graph`, execution order)."""
    mine = set(ops)
    consumers = graph.consumers()
    producers = graph.producers()
    order = {oi: k for k, oi in enumerate(ops)}            # execution order

    def only_reader(operand: int) -> Operation | None:
        readers = consumers.get(operand, [])
        if len(readers) != 1 or readers[0] not in mine or operand in graph.outputs:
            return None
        return graph.operations[readers[0]]

    def feeder(operand: int) -> Operation | None:
        """The op of `ops` that writes `operand`, when an op of `ops` alone reads it."""
        src = graph.operations.get(producers.get(operand, -1))
        if src is None or src.index not in mine or only_reader(operand) is None:
            return None
        return src

    def tail_of(conv: Operation) -> tuple[str | None, list[Operation]]:
        """The activation ops of `ops` after `conv` when they are all its output's readers
        (activation_tail), else (None, [])."""
        y = conv.outputs[0]
        readers = [graph.operations[r] for r in consumers.get(y, [])]
        if y in graph.outputs or not readers or any(r.index not in mine for r in readers):
            return None, []
        return activation_tail(readers, y, graph, consumers) or (None, [])

    def source(operand: int) -> tuple[Operation | None, str | None, list[Operation]]:
        """The feeder of `operand`, or the CONV_2D whose activation tail ends in it, with the
        tail's kind and ops."""
        src = feeder(operand)
        if src is None:
            return None, None, []
        for i in src.inputs if src.type in ("BinaryArithmetic", "ElementwiseActivation") else ():
            conv = graph.operations.get(producers.get(i, -1))
            if conv is not None and conv.type == "Conv2D" and conv.index in mine:
                kind, tail = tail_of(conv)
                if tail and tail[-1] is src:
                    return conv, kind, tail
        return src, None, []

    found = []
    for oi in ops:
        dw = graph.operations[oi]
        if dw.type != "DepthwiseConv2D" or not _depthwise(dw, graph):
            continue
        x = dw.inputs[0]
        e_bytes = graph.operands[x].num_elements * 4
        if e_bytes < MIN_EXPANDED_BYTES:
            continue
        # the producer of the depthwise input joins as its expand, the network's stem, or a
        # zero PAD of the rows and columns (folded into the depthwise's own padding), which
        # may follow the expand or come before the stem; the expand or stem with the
        # activation ops after it
        src, e_kind, e_tail = source(x)
        expand = src if src is not None and pointwise(src, graph) else None
        stem = src if src is not None and expand is None and _stem(src, graph) else None
        pad = src if src is not None and not e_tail and _spatial_pad(src, dw, graph) else None
        if pad is not None:
            before, e_kind, e_tail = source(pad.inputs[0])
            expand = before if before is not None and pointwise(before, graph) else None
        if stem is not None:
            before = feeder(stem.inputs[0])
            pad = before if before is not None and _spatial_pad(before, stem, graph) else None
        if expand is None and stem is None:
            e_kind, e_tail = None, []
        d_kind, d_tail = tail_of(dw)
        project = only_reader((d_tail[-1] if d_tail else dw).outputs[0])
        if project is not None and not pointwise(project, graph):
            project = None
        if project is None and (expand is None and stem is None or not _lone_pays(dw, e_bytes,
                                                                                  graph)):
            continue            # a lone depthwise: its epilogue fold (folds.py) covers it
        block_in = expand.inputs[0] if expand is not None else \
            pad.inputs[0] if pad is not None and stem is None else x
        add = only_reader(project.outputs[0]) if project is not None else None
        if add is not None and not _residual(add, project.outputs[0], block_in, graph):
            add = None
        roles = {"pad": pad, "stem": stem, "expand": expand,
                 **{f"expand_{r}": op for r, op in zip(TAIL_ROLES.get(e_kind, ()), e_tail)},
                 "depthwise": dw,
                 **{f"depthwise_{r}": op for r, op in zip(TAIL_ROLES.get(d_kind, ()), d_tail)},
                 "project": project, "add": add}
        members = dict(sorted(((r, op) for r, op in roles.items() if op is not None),
                              key=lambda m: order[m[1].index]))
        d_bytes = graph.operands[dw.outputs[0]].num_elements * 4
        first = "expanded tensor" if expand is not None else "stem output" if stem else None
        what = (f"{first} {mb(e_bytes)} and depthwise output {mb(d_bytes)}" if first
                else f"depthwise output {mb(d_bytes)}")
        what += " kept in row bands" + ("" if project is not None else
                                        ", the depthwise output written as the block's")
        first_conv = "expand" if expand is not None else "stem"
        acts = [f"{k} after the {c}" for k, c in ((e_kind, first_conv), (d_kind, "depthwise"))
                if k]
        if acts:
            what += f" ({' and '.join(acts)} as epilogues)"
        if pad is not None:
            what = f"{pad.name} folded into the {'stem' if stem else 'depthwise'} padding, " + what
        found.append(FusionProposal(tuple(op.index for op in members.values()),
                                    "InvertedResidual", {"roles": tuple(members)}, what))
    return found


def zero_pad_amounts(op: Operation, graph: Graph) -> np.ndarray | None:
    """The (rank, 2) amounts of a float32 PAD (or PADV2 with a constant 0) by constant
    non-negative amounts; None for any other op."""
    if op.type not in ("Pad", "PadV2") or len(op.inputs) < 2 or op.inputs[1] < 0:
        return None
    x, y, pads = (graph.operands[i] for i in (op.inputs[0], op.outputs[0], op.inputs[1]))
    if x.dtype != F32 or y.dtype != F32 or x.quant is not None or y.quant is not None or \
            pads.data is None or not x.shape or np.asarray(pads.data).size != 2 * len(x.shape):
        return None
    if len(op.inputs) > 2 and op.inputs[2] >= 0:
        value = graph.operands[op.inputs[2]]
        if value.data is None or np.asarray(value.data).size != 1 or \
                float(np.asarray(value.data).reshape(())) != 0.0:
            return None
    p = np.asarray(pads.data).reshape(-1, 2)
    return p if (p >= 0).all() else None


def mb(nbytes: int) -> str:
    return f"{nbytes / 1e6:.1f} MB" if nbytes >= 100_000 else f"{nbytes / 1e3:.1f} kB"


def float_op(graph: Graph, op: Operation, weights: tuple[int, ...]) -> bool:
    """float32 operands (none quantized), inputs at `weights` constant (absent ones allowed
    past the first), a clamp as the fused activation."""
    for k, i in enumerate(op.inputs):
        if i < 0:
            if k in weights[:1]:
                return False
            continue
        o = graph.operands[i]
        if o.dtype != F32 or o.quant is not None or (k in weights and not o.is_constant):
            return False
    if any(graph.operands[o].dtype != F32 for o in op.outputs):
        return False
    return (op.params.get("fused_activation_function") or "NONE") in CLAMPS


def _depthwise(op: Operation, graph: Graph) -> bool:
    p = op.params
    if len(op.inputs) < 2 or not float_op(graph, op, (1, 2)):
        return False
    w, x = graph.operands[op.inputs[1]].shape, graph.operands[op.inputs[0]].shape
    return (len(w) == 4 and len(x) == 4 and w[1] == w[2] and w[1] in (3, 5) and w[0] == 1
            and w[3] == x[3] and p.dilation_h_factor == 1 and p.dilation_w_factor == 1)


def pointwise(op: Operation, graph: Graph) -> bool:
    """A 1x1 stride-1 ungrouped CONV_2D (the GEMM of every pixel)."""
    if op.type != "Conv2D" or len(op.inputs) < 2 or not float_op(graph, op, (1, 2)):
        return False
    w, x = graph.operands[op.inputs[1]].shape, graph.operands[op.inputs[0]].shape
    y = graph.operands[op.outputs[0]].shape
    return (len(w) == 4 and len(x) == 4 and w[1] == w[2] == 1 and w[3] == x[3]
            and op.params.stride_h == 1 and op.params.stride_w == 1
            and tuple(y[:3]) == tuple(x[:3]))


def _stem(op: Operation, graph: Graph) -> bool:
    """A CONV_2D the direct convolution computes: a window (not 1x1) over at most
    DIRECT_MAX_CIN input channels, all of them (ungrouped)."""
    if op.type != "Conv2D" or len(op.inputs) < 2 or not float_op(graph, op, (1, 2)):
        return False
    w, x = graph.operands[op.inputs[1]].shape, graph.operands[op.inputs[0]].shape
    return (len(w) == 4 and len(x) == 4 and w[3] == x[3] <= DIRECT_MAX_CIN
            and w[1] * w[2] > 1)


def _spatial_pad(op: Operation, conv: Operation, graph: Graph) -> bool:
    """A float32 PAD (or PADV2 with a constant 0) of a 4-D tensor's rows and columns only,
    by constant non-negative amounts: the zeros `conv`'s own padding reads, so long as every
    output row and column of `conv` still reads a row and a column of the PAD's input."""
    p = zero_pad_amounts(op, graph)
    if p is None or len(p) != 4 or p[0].any() or p[3].any():
        return False
    x, y = graph.operands[op.inputs[0]], graph.operands[op.outputs[0]]
    k = graph.operands[conv.inputs[1]].shape[1:3]
    g = conv_geometry(conv.params, y.shape, k, graph.operands[conv.outputs[0]].shape)
    for first, size, out, stride, dil, kk, before in ((g.pt, x.shape[1], g.oh, g.sh, g.dh, k[0],
                                                       p[1, 0]),
                                                      (g.pl, x.shape[2], g.ow, g.sw, g.dw, k[1],
                                                       p[2, 0])):
        lead = first + int(before)             # the padding before the PAD's input
        if lead > (kk - 1) * dil or (out - 1) * stride - lead >= size:
            return False
    return True


def _lone_pays(dw: Operation, e_bytes: int, graph: Graph) -> bool:
    """Whether a block that ends with its depthwise (no project) gains from the fusion: its
    expanded tensor at least LONE_MIN_EXPANDED_BYTES, the depthwise 3x3 (module docstring)."""
    return e_bytes >= LONE_MIN_EXPANDED_BYTES and graph.operands[dw.inputs[1]].shape[1] == 3


def _residual(op: Operation, project_out: int, block_in: int, graph: Graph) -> bool:
    """An ADD of the project output and the block input (either order), shaped alike."""
    if op.type != "BinaryArithmetic" or op.subtype != "ADD" or len(op.inputs) != 2 or \
            sorted(op.inputs) != sorted((project_out, block_in)) or not float_op(graph, op, ()):
        return False
    shapes = {tuple(graph.operands[i].shape) for i in (*op.inputs, op.outputs[0])}
    return len(shapes) == 1


def activation_tail(readers: list[Operation], y: int, graph: Graph, consumers) -> tuple | None:
    """The activation ops after a convolution that a convolution epilogue computes
    (common/epilogue.h): ("swish", [LOGISTIC, MUL]) or ("hard_swish", [HARD_SWISH]) when
    `readers` of its output `y` are those, else None."""
    return _swish(readers, y, graph, consumers) or _hard_swish(readers, graph)


def _swish(readers: list[Operation], y: int, graph: Graph, consumers) -> tuple | None:
    """("swish", [LOGISTIC, MUL]) when `readers` of `y` are LOGISTIC(y) and MUL(y, that) with
    a clamp, shaped as `y`, the LOGISTIC output read by the MUL alone."""
    if len(readers) != 2:
        return None
    sig = next((r for r in readers if _activation(r, "LOGISTIC", graph)), None)
    mul = next((r for r in readers if r is not sig), None)
    if sig is None or mul is None:
        return None
    s = sig.outputs[0]
    if mul.type != "BinaryArithmetic" or mul.subtype != "MUL" or \
            sorted(mul.inputs) != sorted((y, s)) or consumers.get(s) != [mul.index] or \
            s in graph.outputs or not float_op(graph, mul, ()) or \
            tuple(graph.operands[mul.outputs[0]].shape) != tuple(graph.operands[y].shape):
        return None
    return "swish", [sig, mul]


def _hard_swish(readers: list[Operation], graph: Graph) -> tuple | None:
    """("hard_swish", [HARD_SWISH]) when the only reader is a HARD_SWISH."""
    if len(readers) == 1 and _activation(readers[0], "HARD_SWISH", graph):
        return "hard_swish", readers
    return None


def _activation(op: Operation, subtype: str, graph: Graph) -> bool:
    return (op.type == "ElementwiseActivation" and op.subtype == subtype
            and len(op.inputs) == 1 and float_op(graph, op, ()))
