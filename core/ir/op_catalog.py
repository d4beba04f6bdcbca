"""Mapping from the schema's builtin operator names to onert's grouped IR operation types.

onert groups many TFLite builtins into one IR operation with a sub-type: ADD/SUB/MUL/DIV are
`BinaryArithmetic`, RELU/TANH/... are `ElementwiseActivation`, and so on. Every builtin keeps a
home here, so a model always loads; whether a backend can run it is decided at compile time.
"""
from __future__ import annotations

GROUPS: dict[str, tuple[str, list[str]]] = {
    "BinaryArithmetic": ("arithmetic_type", ["ADD", "SUB", "MUL", "DIV"]),
    "ElementwiseActivation": ("activation_type", [
        "ELU", "LOGISTIC", "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "TANH", "LEAKY_RELU",
        "HARD_SWISH", "GELU"]),
    "ElementwiseBinary": ("binary_type", [
        "FLOOR_DIV", "FLOOR_MOD", "LOGICAL_AND", "LOGICAL_OR", "MAXIMUM", "MINIMUM", "POW",
        "ATAN2"]),
    "ElementwiseUnary": ("unary_type", [
        "ABS", "CAST", "COS", "DEQUANTIZE", "EXP", "FLOOR", "CEIL", "LOG", "LOGICAL_NOT", "NEG",
        "QUANTIZE", "ROUND", "RSQRT", "SIN", "SQRT", "SQUARE", "ZEROS_LIKE", "SIGN"]),
    "Reduce": ("reduce_type", [
        "REDUCE_ALL", "REDUCE_ANY", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "SUM", "MEAN"]),
    "Pool2D": ("pool_type", ["AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"]),
    "Comparison": ("comparison_type", [
        "EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"]),
    "ArgMinMax": ("arg_type", ["ARG_MAX", "ARG_MIN"]),
}

# Builtins whose IR name is not the CamelCase of the schema name.
RENAMES: dict[str, str] = {
    "CONV_2D": "Conv2D", "CONV_3D": "Conv3D", "CONV_3D_TRANSPOSE": "Conv3DTranspose",
    "DEPTHWISE_CONV_2D": "DepthwiseConv2D", "CONCATENATION": "Concat",
    "PRELU": "PReLU", "BATCH_TO_SPACE_ND": "BatchToSpaceND", "SPACE_TO_BATCH_ND": "SpaceToBatchND",
    "LSTM": "LSTM", "UNIDIRECTIONAL_SEQUENCE_LSTM": "UnidirectionalSequenceLSTM",
    "BIDIRECTIONAL_SEQUENCE_LSTM": "BidirectionalSequenceLSTM", "RNN": "RNN",
    "UNIDIRECTIONAL_SEQUENCE_RNN": "UnidirectionalSequenceRNN",
    "BIDIRECTIONAL_SEQUENCE_RNN": "BidirectionalSequenceRNN", "TOPK_V2": "TopKV2",
    "REVERSE_V2": "Reverse", "BATCH_MATMUL": "BatchMatMul", "PADV2": "PadV2", "SELECT_V2": "SelectV2", "GATHER_ND": "GatherND",
    "SCATTER_ND": "ScatterND", "L2_NORMALIZATION": "L2Normalization", "SPLIT_V": "SplitV",
    "NON_MAX_SUPPRESSION_V4": "NonMaxSuppressionV4", "NON_MAX_SUPPRESSION_V5": "NonMaxSuppressionV5",
    "INSTANCE_NORM": "InstanceNorm", "BCQ_FULLY_CONNECTED": "BCQFullyConnected",
    "BCQ_GATHER": "BCQGather", "GRU": "GRU", "RMS_NORM": "RmsNorm", "ROPE": "RoPE",
    "RUN_MODEL": "RunModel", "CUSTOM": "Custom", "IF": "If", "WHILE": "While",
    "LOCAL_RESPONSE_NORMALIZATION": "LocalResponseNormalization",
}

# Circle-only builtins (negative codes in the Circle schema).
CIRCLE_EXTRA_CODES: dict[int, str] = {
    -2: "INSTANCE_NORM", -3: "BCQ_FULLY_CONNECTED", -4: "BCQ_GATHER", -5: "GRU",
    -6: "RMS_NORM", -7: "ROPE", -8: "RUN_MODEL",
}

# IR types that load but that no backend runs, on purpose, and why: every bundled backend's
# refusal of such an op names the reason (KernelRegistry.supports), so the compile error does.
_BCQ = "ONE has not published the arithmetic of Circle's BCQ ops (a guessed kernel would be wrong)"
REFUSED: dict[str, str] = {"BCQFullyConnected": _BCQ, "BCQGather": _BCQ}

_GROUP_OF: dict[str, tuple[str, str]] = {
    name: (ir_type, field) for ir_type, (field, names) in GROUPS.items() for name in names}


def camel(name: str) -> str:
    """CONV_2D -> Conv2d style CamelCase (used for builtins without a rename)."""
    return "".join(part[:1].upper() + part[1:].lower() for part in name.split("_"))


def ir_type_of(builtin: str) -> tuple[str, str | None]:
    """The IR operation type of a builtin name and, for grouped types, the sub-type field."""
    if builtin in _GROUP_OF:
        return _GROUP_OF[builtin]
    return RENAMES.get(builtin, camel(builtin)), None


def all_ir_types(builtins: list[str]) -> list[str]:
    """Every IR type name that the given builtin names map to, sorted."""
    return sorted({ir_type_of(b)[0] for b in builtins} | {"Permute"})
