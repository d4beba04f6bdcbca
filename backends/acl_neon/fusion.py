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
Blocks whose SE gate or HARD_SWISH sit between these ops (EfficientNet, MobileNetV3's later
blocks) are not.

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

Activations fused into a convolution's store (kernel: ops/conv_epilogue.py), float32:

    CONV_2D or DEPTHWISE_CONV_2D (clamp) -> LOGISTIC -> MUL(conv output, LOGISTIC output)
        (swish, EfficientNet's), the MUL with a clamp            -> "swish"
    CONV_2D or DEPTHWISE_CONV_2D (clamp) -> HARD_SWISH (MobileNetV3's)   -> "hard_swish"

found from each convolution whose output only those ops read (and no graph output), as
Conv2DEpilogue / DepthwiseConv2DEpilogue: the convolution's params plus `epilogue` and the MUL's
`epilogue_activation`. The activation runs on each tile or row the convolution has just stored,
while it is in cache, with the eltwise kernels' arithmetic: the two (one) passes over the whole
tensor that the ops apart make are gone, the results bit-identical. Proposed at every size
(`propose_epilogues`); an inverted-residual block proposed first keeps its ops.

Where it pays (fused against the same ops apart, sums of per-op trace medians, interleaved in
one process, 1 thread, Zen 4): EfficientNet-B0's 33 convolutions + swish 0.91x and 16
depthwise + swish 0.91x; the logistic's arithmetic stays (about 0.3 ns an element), what goes
is the memory traffic, most where the tensor is out of L2 (its 112x112x96 expand 0.77 to
0.81x). MobileNetV3-small's hard-swish layers 0.97x and 0.99x: its tensors fit L2, where a
separate HARD_SWISH pass costs about what the epilogue does. Never slower: no size limit.

The squeeze-and-excitation gate folded into the 1x1 convolution that reads it (kernel:
ops/gated_conv2d.py), float32:

    MUL(x, gate), gate one value per channel (shape (1 or batch, 1, 1, C)), the MUL with a
    clamp -> CONV_2D 1x1 stride 1 (clamp), its only reader                -> GatedConv2D

as EfficientNet (gate: LOGISTIC) and MobileNetV3 (gate: hard sigmoid) end their blocks. The
GEMM gathers its input rows as x * gate into a per-thread scratch, so the gated tensor is never
written (`propose_gates`). Measured as above: EfficientNet-B0's 16 gates 0.97 to 0.98x,
MobileNetV3-small's 9 gates 0.94 to 0.97x (the gather costs about what the MUL's pass did on
tensors in L2; it gains on the larger ones).

A PAD of the channels folded into the ADD that reads it (kernel: ops/eltwise.py
ChannelPaddedAdd; `propose_channel_pads`), float32:

    PAD (zeros, the last dim only) -> ADD with a tensor of the padded shape
    -> [RELU, RELU6 or RELU_N1_TO_1, the only reader, when the ADD has no fused activation]

as MediaPipe's BlazeBlocks widen their residual before adding it. One pass per pixel: the
ADD of x's channels, and of +0.0 (what the PAD wrote) to the others, then the clamp, so the
results are bit-identical and the padded tensor is never written. face_detection_short_range's
11 PADs: 3.7% of the model at 1 thread, 11.6% at 2 (in-process A/B against the same model
without this fold, outputs identical); palm_detection_lite's 3: 0.4%. Proposed before the
clamps, so an ADD -> RELU pair after such a PAD joins it.

A clamp activation op folded into the op before it (`propose_clamps`), float32:

    ADD / SUB / MUL / DIV, CONV_2D or DEPTHWISE_CONV_2D with no fused activation
    -> RELU, RELU6 or RELU_N1_TO_1, the only reader of its output

as the TFLite converter fuses them, and as MediaPipe's detectors leave them apart (their
residual blocks end ADD -> RELU). The binary op becomes ClampedBinaryArithmetic (ops/eltwise.py:
the same native pass with the activation's clamp), a convolution the same convolution with the
activation as its fused clamp; the activation's pass over the tensor is gone, the results
bit-identical (the clamp is the one each kernel applies to its own fused activation).
face_detection_short_range's 17 ADD -> RELU pairs and its stem's CONV_2D -> RELU: 2% of
its time at 2 threads.
"""
from __future__ import annotations

import numpy as np

from ...core.backend import FusionProposal
from ...core.ir import Graph, Operation
from ...core.ops.base import CLAMPS
from ...core.ops.window import conv_geometry

F32 = np.dtype(np.float32)
MIN_EXPANDED_BYTES = 1 << 19
DIRECT_MAX_CIN = 16               # csrc/gemm/conv_direct.h kDirectMaxCin
ROLES = ("pad", "stem", "expand", "depthwise", "project", "add")
CONVS = {"Conv2D": "Conv2DEpilogue", "DepthwiseConv2D": "DepthwiseConv2DEpilogue"}


def propose(graph: Graph, ops: list[int]) -> list[FusionProposal]:
    """The inverted-residual blocks among `ops` (acl_neon's ops of `graph`, execution order)."""
    mine = set(ops)
    consumers = graph.consumers()
    producers = graph.producers()

    def only_reader(operand: int) -> Operation | None:
        readers = consumers.get(operand, [])
        if len(readers) != 1 or readers[0] not in mine or operand in graph.outputs:
            return None
        return graph.operations[readers[0]]

    found = []
    for oi in ops:
        dw = graph.operations[oi]
        if dw.type != "DepthwiseConv2D" or not _depthwise(dw, graph):
            continue
        x = dw.inputs[0]
        # the producer of the depthwise input joins as its expand, the network's stem, or a
        # zero PAD of the rows and columns (folded into the depthwise's own padding)
        src = graph.operations.get(producers.get(x, -1))
        if src is not None and (src.index not in mine or only_reader(x) is None):
            src = None
        expand = src if src is not None and _pointwise(src, graph) else None
        stem = src if src is not None and expand is None and _stem(src, graph) else None
        pad = src if src is not None and _spatial_pad(src, dw, graph) else None
        if pad is not None:       # the PAD's own producer may be the block's expand
            before = graph.operations.get(producers.get(pad.inputs[0], -1))
            if before is not None and before.index in mine and \
                    only_reader(pad.inputs[0]) is not None and _pointwise(before, graph):
                expand = before
        if stem is not None:      # a PAD before the stem folds into the stem's padding
            before = graph.operations.get(producers.get(stem.inputs[0], -1))
            if before is not None and before.index in mine and \
                    only_reader(stem.inputs[0]) is not None and _spatial_pad(before, stem, graph):
                pad = before
        project = only_reader(dw.outputs[0])
        if project is None or not _pointwise(project, graph):
            continue
        block_in = expand.inputs[0] if expand is not None else \
            pad.inputs[0] if pad is not None and stem is None else x
        add = only_reader(project.outputs[0])
        if add is not None and not _residual(add, project.outputs[0], block_in, graph):
            add = None
        roles = dict(zip(ROLES, (pad, stem, expand, dw, project, add)))
        order = {oi: k for k, oi in enumerate(ops)}            # execution order
        members = dict(sorted(((r, op) for r, op in roles.items() if op is not None),
                              key=lambda m: order[m[1].index]))
        e_bytes = graph.operands[x].num_elements * 4
        if e_bytes < MIN_EXPANDED_BYTES:
            continue
        d_bytes = graph.operands[dw.outputs[0]].num_elements * 4
        first = "expanded tensor" if expand is not None else "stem output" if stem else None
        what = (f"{first} {_mb(e_bytes)} and depthwise output {_mb(d_bytes)}" if first
                else f"depthwise output {_mb(d_bytes)}")
        if pad is not None:
            what = f"{pad.name} folded into the {'stem' if stem else 'depthwise'} padding, " + what
        found.append(FusionProposal(tuple(op.index for op in members.values()),
                                    "InvertedResidual", {"roles": tuple(members)},
                                    f"{what} kept in row bands"))
    return found


def propose_epilogues(graph: Graph, ops: list[int]) -> list[FusionProposal]:
    """The convolutions among `ops` (acl_neon's, execution order) followed by a swish or a
    HARD_SWISH of their output alone, each with those ops."""
    mine = set(ops)
    consumers = graph.consumers()
    found = []
    for oi in ops:
        conv = graph.operations[oi]
        if conv.type not in CONVS or not _floats(graph, conv, ()):
            continue
        y = conv.outputs[0]
        readers = [graph.operations[r] for r in consumers.get(y, [])]
        if y in graph.outputs or not readers or any(r.index not in mine for r in readers):
            continue
        tail = _swish(readers, y, graph, consumers) or _hard_swish(readers, graph)
        if tail is None:
            continue
        kind, members = tail
        act = members[-1].params.get("fused_activation_function") or "NONE"
        n = graph.operands[y].num_elements * 4
        where = "output row" if conv.type == "DepthwiseConv2D" else "tile"
        found.append(FusionProposal(
            (conv.index, *(op.index for op in members)), CONVS[conv.type],
            {**conv.params.as_dict(), "epilogue": kind, "epilogue_activation": act},
            f"{kind} ({', '.join(op.name for op in members)}) on each {where} as it is "
            f"stored: {_mb(n)} written once, not {len(members) + 1} times"))
    return found


def propose_gates(graph: Graph, ops: list[int]) -> list[FusionProposal]:
    """The per-channel gating MULs among `ops` (acl_neon's, execution order) whose product only
    a 1x1 stride-1 CONV_2D reads, each with that convolution."""
    mine = set(ops)
    consumers = graph.consumers()
    found = []
    for oi in ops:
        mul = graph.operations[oi]
        if mul.type != "BinaryArithmetic" or mul.subtype != "MUL" or len(mul.inputs) != 2 or \
                not _floats(graph, mul, ()):
            continue
        xg = mul.outputs[0]
        readers = consumers.get(xg, [])
        if len(readers) != 1 or readers[0] not in mine or xg in graph.outputs:
            continue
        conv = graph.operations[readers[0]]
        if not _pointwise(conv, graph) or conv.inputs[0] != xg:
            continue
        shapes = [tuple(graph.operands[i].shape) for i in mul.inputs]
        gate = next((k for k in (1, 0) if _gate_of(shapes[k], shapes[1 - k])), None)
        if gate is None or shapes[1 - gate] != tuple(graph.operands[xg].shape):
            continue
        n = graph.operands[xg].num_elements * 4
        found.append(FusionProposal(
            (mul.index, conv.index), "GatedConv2D",
            {**conv.params.as_dict(), "gate_input": gate,
             "gate_activation": mul.params.get("fused_activation_function") or "NONE"},
            f"the per-channel gate applied as the convolution reads its input: the {_mb(n)} "
            f"gated tensor never written"))
    return found


def _gate_of(gate: tuple, x: tuple) -> bool:
    """Whether `gate` is one value per channel of the NHWC `x`, for all images or per image."""
    return (len(x) == 4 and len(gate) == 4 and gate[1] == gate[2] == 1 and gate[3] == x[3]
            and gate[0] in (1, x[0]) and x[1] * x[2] > 1)


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
            s in graph.outputs or not _floats(graph, mul, ()) or \
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
            and len(op.inputs) == 1 and _floats(graph, op, ()))


ACTIVATION_CLAMPS = ("RELU", "RELU6", "RELU_N1_TO_1")
CLAMPED = {"BinaryArithmetic": "ClampedBinaryArithmetic", "Conv2D": "Conv2D",
           "DepthwiseConv2D": "DepthwiseConv2D"}


def propose_clamps(graph: Graph, ops: list[int]) -> list[FusionProposal]:
    """The clamp activations among `ops` (acl_neon's, execution order) whose input is the
    output of a float32 binary op or convolution of `ops` without a fused activation, read by
    nothing else (module docstring), each with that op."""
    mine = set(ops)
    consumers = graph.consumers()
    producers = graph.producers()
    found = []
    for oi in ops:
        act = graph.operations[oi]
        if act.type != "ElementwiseActivation" or act.subtype not in ACTIVATION_CLAMPS:
            continue
        x = act.inputs[0]
        src = graph.operations[producers[x]] if producers.get(x) in mine else None
        if src is None or src.type not in CLAMPED or x in graph.outputs or \
                consumers.get(x, []) != [oi] or not _floats(graph, act, ()) or \
                not _floats(graph, src, ()) or \
                (src.params.get("fused_activation_function") or "NONE") != "NONE":
            continue
        n = graph.operands[x].num_elements * 4
        found.append(FusionProposal(
            (src.index, act.index), CLAMPED[src.type],
            {**src.params.as_dict(), "fused_activation_function": act.subtype},
            f"{act.name} as {src.name}'s fused clamp: {_mb(n)} written once, not twice"))
    return found


def propose_channel_pads(graph: Graph, ops: list[int]) -> list[FusionProposal]:
    """The float32 PADs among `ops` (acl_neon's, execution order) that zero-extend only the last
    dim and whose output only an ADD of `ops` reads, against a tensor of the padded shape, each
    with that ADD and the clamp activation that alone reads the ADD's output, if any (module
    docstring)."""
    mine = set(ops)
    consumers = graph.consumers()
    found = []
    for oi in ops:
        pad = graph.operations[oi]
        if not _channel_pad(pad, graph):
            continue
        padded = pad.outputs[0]
        readers = consumers.get(padded, [])
        if padded in graph.outputs or len(readers) != 1 or readers[0] not in mine:
            continue
        add = graph.operations[readers[0]]
        if add.type != "BinaryArithmetic" or add.subtype != "ADD" or len(add.inputs) != 2 or \
                add.inputs[0] == add.inputs[1] or not _floats(graph, add, ()) or \
                any(tuple(graph.operands[i].shape) != tuple(graph.operands[padded].shape)
                    for i in (*add.inputs, add.outputs[0])):
            continue
        members, act = [pad, add], add.params.get("fused_activation_function") or "NONE"
        y = add.outputs[0]
        after = consumers.get(y, [])
        if act == "NONE" and y not in graph.outputs and len(after) == 1 and after[0] in mine:
            clamp = graph.operations[after[0]]
            if clamp.type == "ElementwiseActivation" and clamp.subtype in ACTIVATION_CLAMPS \
                    and _floats(graph, clamp, ()):
                members, act = [pad, add, clamp], clamp.subtype
        p = np.asarray(graph.operands[pad.inputs[1]].data).reshape(-1, 2)
        x = graph.operands[pad.inputs[0]]
        found.append(FusionProposal(
            tuple(op.index for op in members), "ChannelPaddedAdd",
            {"pad_lo": int(p[-1, 0]), "pad_len": int(x.shape[-1]),
             "fused_activation_function": act},
            f"{pad.name} of the channels read by the {add.name} in place: "
            f"{_mb(graph.operands[padded].num_elements * 4)} never written"))
    return found


def _channel_pad(op: Operation, graph: Graph) -> bool:
    """A float32 zero PAD of the last dim only."""
    p = _zero_pad_amounts(op, graph)
    return p is not None and not p[:-1].any() and bool(p[-1].any())


def _zero_pad_amounts(op: Operation, graph: Graph) -> np.ndarray | None:
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


def _mb(nbytes: int) -> str:
    return f"{nbytes / 1e6:.1f} MB" if nbytes >= 100_000 else f"{nbytes / 1e3:.1f} kB"


def _floats(graph: Graph, op: Operation, weights: tuple[int, ...]) -> bool:
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
    if len(op.inputs) < 2 or not _floats(graph, op, (1, 2)):
        return False
    w, x = graph.operands[op.inputs[1]].shape, graph.operands[op.inputs[0]].shape
    return (len(w) == 4 and len(x) == 4 and w[1] == w[2] and w[1] in (3, 5) and w[0] == 1
            and w[3] == x[3] and p.dilation_h_factor == 1 and p.dilation_w_factor == 1)


def _pointwise(op: Operation, graph: Graph) -> bool:
    """A 1x1 stride-1 ungrouped CONV_2D (the GEMM of every pixel)."""
    if op.type != "Conv2D" or len(op.inputs) < 2 or not _floats(graph, op, (1, 2)):
        return False
    w, x = graph.operands[op.inputs[1]].shape, graph.operands[op.inputs[0]].shape
    y = graph.operands[op.outputs[0]].shape
    return (len(w) == 4 and len(x) == 4 and w[1] == w[2] == 1 and w[3] == x[3]
            and op.params.stride_h == 1 and op.params.stride_w == 1
            and tuple(y[:3]) == tuple(x[:3]))


def _stem(op: Operation, graph: Graph) -> bool:
    """A CONV_2D the direct convolution computes: a window (not 1x1) over at most
    DIRECT_MAX_CIN input channels, all of them (ungrouped)."""
    if op.type != "Conv2D" or len(op.inputs) < 2 or not _floats(graph, op, (1, 2)):
        return False
    w, x = graph.operands[op.inputs[1]].shape, graph.operands[op.inputs[0]].shape
    return (len(w) == 4 and len(x) == 4 and w[3] == x[3] <= DIRECT_MAX_CIN
            and w[1] * w[2] > 1)


def _spatial_pad(op: Operation, conv: Operation, graph: Graph) -> bool:
    """A float32 PAD (or PADV2 with a constant 0) of a 4-D tensor's rows and columns only,
    by constant non-negative amounts: the zeros `conv`'s own padding reads, so long as every
    output row and column of `conv` still reads a row and a column of the PAD's input."""
    p = _zero_pad_amounts(op, graph)
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


def _residual(op: Operation, project_out: int, block_in: int, graph: Graph) -> bool:
    """An ADD of the project output and the block input (either order), shaped alike."""
    if op.type != "BinaryArithmetic" or op.subtype != "ADD" or len(op.inputs) != 2 or \
            sorted(op.inputs) != sorted((project_out, block_in)) or not _floats(graph, op, ()):
        return False
    shapes = {tuple(graph.operands[i].shape) for i in (*op.inputs, op.outputs[0])}
    return len(shapes) == 1
