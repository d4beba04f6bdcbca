"""Realistic operand layouts for tools/op_table.py's synthetic one-operation graphs.

A probe describes one builtin as a converted TFLite model holds it: its inputs in the schema's
order (data of the probed dtype, constant int32 parameters such as axes, paddings and shapes,
constant weights and biases, computed int32 indices, absent optional inputs), its outputs
(the probed dtype, or a fixed one: bool for comparisons, int32 for ArgMax indices) and the
option values a converter writes. The probed dtype fills only the slots that carry data; the
backends' own `supports()` then answers for that dtype. A builtin without a probe gets the
generic layout of op_table.py.

Weights follow TFLite's quantization schemes: `q-i8` int8 weights per channel (on `qaxis`),
`q-u8` uint8 weights per tensor, `q-i16` (16x8) int8 weights per channel with int64 biases;
biases of quantized ops are int32 with scale input_scale * weight_scale.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class D:
    """A computed tensor of the probed dtype (quantized as the column says)."""
    shape: tuple[int, ...] = (1, 2, 2, 1)
    variable: bool = False


@dataclass(frozen=True)
class C:
    """A constant of the probed dtype with the data's quantization (PadV2's constant_values,
    OneHot's on/off values, InstanceNorm's gamma/beta)."""
    shape: tuple[int, ...] = ()
    value: float = 0


@dataclass(frozen=True)
class P:
    """A constant integer parameter tensor (axes, paddings, shapes, k, ...)."""
    values: Any
    dtype: str = "int32"


@dataclass(frozen=True)
class I:  # noqa: E742 - the probe's name for a computed index tensor
    """A computed int32 index tensor (Gather indices, EmbeddingLookup ids)."""
    shape: tuple[int, ...] = (2,)


@dataclass(frozen=True)
class W:
    """Constant weights of the probed dtype; quantized per channel on `qaxis` (int8/int16
    columns) where given."""
    shape: tuple[int, ...]
    qaxis: int | None = None


@dataclass(frozen=True)
class B:
    """A constant bias of `n` values (int32/int64 for quantized columns)."""
    n: int
    weights: int = 1          # the input whose quantization scales the bias


@dataclass(frozen=True)
class O:  # noqa: E742 - the probe's name for an output
    """An output: the probed dtype (with the data's quantization) unless `dtype` is given."""
    shape: tuple[int, ...] = (1, 2, 2, 1)
    dtype: str | None = None


ABSENT = None       # an optional input left out (-1 in the model)


@dataclass(frozen=True)
class Probe:
    inputs: tuple
    outputs: tuple
    params: dict = field(default_factory=dict)


X = (1, 2, 2, 1)
PADS = [[0, 0], [1, 1], [1, 1], [0, 0]]
CONV = {"padding": "SAME", "stride_h": 1, "stride_w": 1, "dilation_h_factor": 1,
        "dilation_w_factor": 1, "fused_activation_function": "NONE"}
CONV3D = {"padding": "SAME", "stride_d": 1, "stride_h": 1, "stride_w": 1,
          "dilation_d_factor": 1, "dilation_h_factor": 1, "dilation_w_factor": 1,
          "fused_activation_function": "NONE"}
POOL = {"padding": "VALID", "stride_h": 2, "stride_w": 2, "filter_height": 2,
        "filter_width": 2, "fused_activation_function": "NONE"}


def _lstm(x_shape: tuple[int, ...], out_shape: tuple[int, ...], **params) -> Probe:
    """The full LSTM kernel's 24 inputs: 2 cells, 2 inputs, 2 outputs, no peephole, no
    projection, no layer norm; the states are variables."""
    n = 2
    weights = tuple(W((n, n)) for _ in range(8))
    inputs = (D(x_shape), *weights, ABSENT, ABSENT, ABSENT, *(B(n) for _ in range(4)),
              ABSENT, ABSENT, D((1, n), variable=True), D((1, n), variable=True),
              ABSENT, ABSENT, ABSENT, ABSENT)
    return Probe(inputs, (O(out_shape),),
                 {"fused_activation_function": "TANH", "cell_clip": 0.0, "proj_clip": 0.0,
                  **params})


def _rnn(x_shape: tuple[int, ...], out_shape: tuple[int, ...], **params) -> Probe:
    """input, weights, recurrent weights, bias, variable hidden state (2 units)."""
    return Probe((D(x_shape), W((2, 2)), W((2, 2)), B(2), D((1, 2), variable=True)),
                 (O(out_shape),), {"fused_activation_function": "TANH", **params})


def _reduce(params=None) -> Probe:
    return Probe((D(X), P([1, 2])), (O((1, 1, 1, 1)),), {"keep_dims": True, **(params or {})})


PROBES: dict[str, Probe] = {
    "ARG_MAX": Probe((D(X), P([3])), (O((1, 2, 2), "int32"),), {"output_type": "INT32"}),
    "ARG_MIN": Probe((D(X), P([3])), (O((1, 2, 2), "int32"),), {"output_type": "INT32"}),
    "BATCH_TO_SPACE_ND": Probe((D((4, 1, 1, 1)), P([2, 2]), P([[0, 0], [0, 0]])), (O(X),)),
    "SPACE_TO_BATCH_ND": Probe((D(X), P([2, 2]), P([[0, 0], [0, 0]])),
                               (O((4, 1, 1, 1)),)),
    "BATCH_MATMUL": Probe((D((1, 2, 3)), D((1, 3, 4))), (O((1, 2, 4)),),
                          {"adj_x": False, "adj_y": False}),
    "FULLY_CONNECTED": Probe((D((1, 4)), W((3, 4), qaxis=0), B(3)), (O((1, 3)),),
                             {"fused_activation_function": "NONE", "keep_num_dims": False,
                              "weights_format": "DEFAULT"}),
    "CONV_2D": Probe((D((1, 4, 4, 2)), W((3, 3, 3, 2), qaxis=0), B(3)), (O((1, 4, 4, 3)),),
                     CONV),
    "DEPTHWISE_CONV_2D": Probe((D((1, 4, 4, 2)), W((1, 3, 3, 2), qaxis=3), B(2)),
                               (O((1, 4, 4, 2)),), {**CONV, "depth_multiplier": 1}),
    "TRANSPOSE_CONV": Probe((P([1, 4, 4, 3]), W((3, 3, 3, 2), qaxis=0), D((1, 4, 4, 2)),
                             B(3, weights=1)), (O((1, 4, 4, 3)),),
                            {"padding": "SAME", "stride_h": 1, "stride_w": 1,
                             "fused_activation_function": "NONE"}),
    "CONV_3D": Probe((D((1, 2, 4, 4, 2)), W((2, 3, 3, 2, 3), qaxis=4), B(3)),
                     (O((1, 2, 4, 4, 3)),), CONV3D),
    "CONV_3D_TRANSPOSE": Probe((P([1, 2, 4, 4, 3]), W((2, 3, 3, 3, 2), qaxis=3),
                                D((1, 2, 4, 4, 2)), B(3, weights=1)), (O((1, 2, 4, 4, 3)),),
                               CONV3D),
    "LSTM": _lstm((1, 2), (1, 2)),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _lstm((1, 3, 2), (1, 3, 2), time_major=False),
    "RNN": _rnn((1, 2), (1, 2)),
    "UNIDIRECTIONAL_SEQUENCE_RNN": _rnn((1, 3, 2), (1, 3, 2), time_major=False),
    "MEAN": _reduce(), "SUM": _reduce(), "REDUCE_MAX": _reduce(), "REDUCE_MIN": _reduce(),
    "REDUCE_PROD": _reduce(), "REDUCE_ANY": _reduce(), "REDUCE_ALL": _reduce(),
    "PAD": Probe((D(X), P(PADS)), (O((1, 4, 4, 1)),)),
    "PADV2": Probe((D(X), P(PADS), C()), (O((1, 4, 4, 1)),)),
    "MIRROR_PAD": Probe((D(X), P(PADS)), (O((1, 4, 4, 1)),), {"mode": "REFLECT"}),
    "SLICE": Probe((D(X), P([0, 0, 0, 0]), P([1, 1, 2, 1])), (O((1, 1, 2, 1)),)),
    "STRIDED_SLICE": Probe((D(X), P([0, 0, 0, 0]), P([1, 1, 2, 1]), P([1, 1, 1, 1])),
                           (O((1, 1, 2, 1)),)),
    "SPLIT": Probe((P(1), D(X)), (O((1, 1, 2, 1)), O((1, 1, 2, 1))), {"num_splits": 2}),
    "SPLIT_V": Probe((D(X), P([1, 1]), P(1)), (O((1, 1, 2, 1)), O((1, 1, 2, 1))),
                     {"num_splits": 2}),
    "TRANSPOSE": Probe((D((1, 2, 3, 1)), P([0, 2, 1, 3])), (O((1, 3, 2, 1)),)),
    "EXPAND_DIMS": Probe((D(X), P(0)), (O((1, 1, 2, 2, 1)),)),
    "RESHAPE": Probe((D(X), P([1, 4])), (O((1, 4)),), {"new_shape": [1, 4]}),
    "SQUEEZE": Probe((D(X),), (O((2, 2)),), {"squeeze_dims": [0, 3]}),
    "RESIZE_BILINEAR": Probe((D(X), P([4, 4])), (O((1, 4, 4, 1)),),
                             {"align_corners": False, "half_pixel_centers": False}),
    "RESIZE_NEAREST_NEIGHBOR": Probe((D(X), P([4, 4])), (O((1, 4, 4, 1)),),
                                     {"align_corners": False, "half_pixel_centers": False}),
    "REVERSE_V2": Probe((D(X), P([1])), (O(X),)),
    "TILE": Probe((D(X), P([1, 2, 1, 1])), (O((1, 4, 2, 1)),)),
    "TOPK_V2": Probe((D((1, 4)), P(2)), (O((1, 2)), O((1, 2), "int32"))),
    "ONE_HOT": Probe((I((2,)), P(3), C(value=1), C(value=0)), (O((2, 3)),), {"axis": -1}),
    "GATHER": Probe((D((3, 2)), I((2,))), (O((2, 2)),), {"axis": 0, "batch_dims": 0}),
    "EMBEDDING_LOOKUP": Probe((I((2,)), D((3, 2))), (O((2, 2)),)),
    "HASHTABLE_LOOKUP": Probe((I((2,)), P([0, 1, 2]), D((3, 2))),
                              (O((2, 2)), O((2,), "uint8"))),
    "INSTANCE_NORM": Probe((D((1, 2, 2, 2)), C((2,), 1), C((2,), 0)), (O((1, 2, 2, 2)),),
                           {"epsilon": 1e-5, "fused_activation_function": "NONE"}),
    "CONCATENATION": Probe((D(X), D(X), D(X)), (O((1, 2, 2, 3)),),
                           {"axis": 3, "fused_activation_function": "NONE"}),
    "PACK": Probe((D((1, 2)), D((1, 2)), D((1, 2))), (O((3, 1, 2)),),
                  {"values_count": 3, "axis": 0}),
    "UNPACK": Probe((D((3, 1, 2)),), (O((1, 2)), O((1, 2)), O((1, 2))), {"num": 3, "axis": 0}),
    "DEPTH_TO_SPACE": Probe((D((1, 1, 1, 4)),), (O(X),), {"block_size": 2}),
    "SPACE_TO_DEPTH": Probe((D(X),), (O((1, 1, 1, 4)),), {"block_size": 2}),
    "AVERAGE_POOL_2D": Probe((D((1, 4, 4, 1)),), (O(X),), POOL),
    "MAX_POOL_2D": Probe((D((1, 4, 4, 1)),), (O(X),), POOL),
    "L2_POOL_2D": Probe((D((1, 4, 4, 1)),), (O(X),), POOL),
    "DEQUANTIZE": Probe((D(X),), (O(X, "float32"),)),
    "LOGICAL_NOT": Probe((D(X),), (O(X, "bool"),)),
    "LOGICAL_AND": Probe((D(X), D(X)), (O(X, "bool"),)),
    "LOGICAL_OR": Probe((D(X), D(X)), (O(X, "bool"),)),
}

# Whole IR op families: one data input (unary) or two (binary), output like the input;
# comparisons give bool. CAST and QUANTIZE change the dtype by design: generic layout.
UNARY_TYPES = ("ElementwiseUnary", "ElementwiseActivation")
BINARY_TYPES = ("BinaryArithmetic", "ElementwiseBinary", "SquaredDifference", "PReLU")
GENERIC = ("CAST", "QUANTIZE")


def probe_for(builtin: str, ir_type: str) -> Probe | None:
    """The probe of a builtin, None for the generic layout."""
    if builtin in PROBES:
        return PROBES[builtin]
    if builtin in GENERIC:
        return None
    if ir_type in UNARY_TYPES:
        return Probe((D(X),), (O(X),))
    if ir_type in BINARY_TYPES:
        return Probe((D(X), D(X)), (O(X),))
    if ir_type == "Comparison":
        return Probe((D(X), D(X)), (O(X, "bool"),))
    return None
