"""The folds acl_neon proposes to the compiler beside its inverted-residual blocks (fusion.py):
an activation, a gate or a PAD computed in the pass of the op next to it (IConfig.fusions;
core/compiler/fusion.py).

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
from .fusion import activation_tail, float_op, mb, pointwise, zero_pad_amounts

CONVS = {"Conv2D": "Conv2DEpilogue", "DepthwiseConv2D": "DepthwiseConv2DEpilogue"}


def propose_epilogues(graph: Graph, ops: list[int]) -> list[FusionProposal]:
    """The convolutions among `ops` (acl_neon's, execution order) followed by a swish or a
    HARD_SWISH of their output alone, each with those ops."""
    mine = set(ops)
    consumers = graph.consumers()
    found = []
    for oi in ops:
        conv = graph.operations[oi]
        if conv.type not in CONVS or not float_op(graph, conv, ()):
            continue
        y = conv.outputs[0]
        readers = [graph.operations[r] for r in consumers.get(y, [])]
        if y in graph.outputs or not readers or any(r.index not in mine for r in readers):
            continue
        tail = activation_tail(readers, y, graph, consumers)
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
            f"stored: {mb(n)} written once, not {len(members) + 1} times"))
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
                not float_op(graph, mul, ()):
            continue
        xg = mul.outputs[0]
        readers = consumers.get(xg, [])
        if len(readers) != 1 or readers[0] not in mine or xg in graph.outputs:
            continue
        conv = graph.operations[readers[0]]
        if not pointwise(conv, graph) or conv.inputs[0] != xg:
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
            f"the per-channel gate applied as the convolution reads its input: the {mb(n)} "
            f"gated tensor never written"))
    return found


def _gate_of(gate: tuple, x: tuple) -> bool:
    """Whether `gate` is one value per channel of the NHWC `x`, for all images or per image."""
    return (len(x) == 4 and len(gate) == 4 and gate[1] == gate[2] == 1 and gate[3] == x[3]
            and gate[0] in (1, x[0]) and x[1] * x[2] > 1)


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
        if not _clamp_op(act, graph):
            continue
        x = act.inputs[0]
        src = graph.operations[producers[x]] if producers.get(x) in mine else None
        if src is None or src.type not in CLAMPED or x in graph.outputs or \
                consumers.get(x, []) != [oi] or not float_op(graph, src, ()) or \
                (src.params.get("fused_activation_function") or "NONE") != "NONE":
            continue
        n = graph.operands[x].num_elements * 4
        found.append(FusionProposal(
            (src.index, act.index), CLAMPED[src.type],
            {**src.params.as_dict(), "fused_activation_function": act.subtype},
            f"{act.name} as {src.name}'s fused clamp: {mb(n)} written once, not twice"))
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
                add.inputs[0] == add.inputs[1] or not float_op(graph, add, ()) or \
                any(tuple(graph.operands[i].shape) != tuple(graph.operands[padded].shape)
                    for i in (*add.inputs, add.outputs[0])):
            continue
        members, act = [pad, add], add.params.get("fused_activation_function") or "NONE"
        y = add.outputs[0]
        after = consumers.get(y, [])
        if act == "NONE" and y not in graph.outputs and len(after) == 1 and after[0] in mine:
            clamp = graph.operations[after[0]]
            if _clamp_op(clamp, graph):
                members, act = [pad, add, clamp], clamp.subtype
        p = np.asarray(graph.operands[pad.inputs[1]].data).reshape(-1, 2)
        x = graph.operands[pad.inputs[0]]
        found.append(FusionProposal(
            tuple(op.index for op in members), "ChannelPaddedAdd",
            {"pad_lo": int(p[-1, 0]), "pad_len": int(x.shape[-1]),
             "fused_activation_function": act},
            f"{pad.name} of the channels read by the {add.name} in place: "
            f"{mb(graph.operands[padded].num_elements * 4)} never written"))
    return found


def _clamp_op(op: Operation, graph: Graph) -> bool:
    """A float32 RELU, RELU6 or RELU_N1_TO_1 op: a clamp another op can apply in its pass."""
    return (op.type == "ElementwiseActivation" and op.subtype in ACTIVATION_CLAMPS
            and float_op(graph, op, ()))


def _channel_pad(op: Operation, graph: Graph) -> bool:
    """A float32 zero PAD of the last dim only."""
    p = zero_pad_amounts(op, graph)
    return p is not None and not p[:-1].any() and bool(p[-1].any())
