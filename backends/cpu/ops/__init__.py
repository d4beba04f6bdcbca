"""The cpu backend's kernels. Importing the modules registers every kernel in `kernels` (float,
quantized and hybrid forms alike); its registrations are the backend's supported-op list."""
from . import (  # noqa: F401
    arg_min_max, batch_matmul, bucketize, conv2d, cumsum, custom, densify, depthwise_conv2d,
    dynamic_ops, elementwise, fully_connected, gather_select, gru, hashtable_lookup,
    hybrid_batch_matmul, hybrid_conv, hybrid_embedding_lookup, hybrid_fully_connected,
    hybrid_lstm, hybrid_rnn, hybrid_svdf, lstm, misc_ops, non_max_suppression, norm, pool2d,
    pool_resize, quant, random_ops, reduce, resize, rnn, rope, segment_scatter, shape_ops,
    slice_split, softmax, svdf, topk_v2, transpose_conv)
from .common import kernels

__all__ = ["kernels"]
