"""The cpu backend's kernels. Importing the modules registers every kernel in `kernels` (float,
quantized and hybrid forms alike); its registrations are the backend's supported-op list."""
from . import (  # noqa: F401
    arg_min_max, batch_matmul, bucketize, concat, conv2d, cumsum, custom, densify,
    depthwise_conv2d, elementwise, fill, fully_connected, gather, gather_select, gru,
    hashtable_lookup, hybrid_batch_matmul, hybrid_conv, hybrid_embedding_lookup,
    hybrid_fully_connected, hybrid_lstm, hybrid_rnn, hybrid_svdf, lstm, matrix_diag, misc_math,
    non_max_suppression, norm, one_hot, pad, pool2d, pool_resize, quant, random_ops, range,
    reduce, reshape, resize, reverse, rnn, rope, scatter, segment, shape, slice, softmax,
    space_batch, space_depth, split, svdf, tile, topk_v2, transpose, transpose_conv, unique,
    where)
from .common import kernels

__all__ = ["kernels"]
