"""The cpu backend's kernels. Importing the modules registers every kernel in `kernels` (float,
quantized and hybrid forms alike); its registrations are the backend's supported-op list."""
from . import (  # noqa: F401
    add_n, arg_min_max, batch_matmul, bitwise, bucketize, concat, conv2d, conv3d,
    conv3d_transpose, cumsum, custom, densify, depthwise_conv2d, elementwise, fill,
    fully_connected, gather, ggml, gru,
    hashtable_lookup, hybrid_batch_matmul, hybrid_conv, hybrid_embedding_lookup,
    hybrid_fully_connected, hybrid_lstm, hybrid_rnn, hybrid_svdf, lstm, matrix_diag,
    non_max_suppression, norm, one_hot, pad, pool2d, prelu, quant, random_ops, range, reduce,
    reshape, resize, reverse, rnn, rope, scatter, segment, select, shape, slice, softmax,
    space_batch, space_depth, split, svdf, tile, topk_v2, transpose, transpose_conv, unique,
    where)
from .common import kernels

__all__ = ["kernels"]
