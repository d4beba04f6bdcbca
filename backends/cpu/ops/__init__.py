"""The cpu backend's kernels. Importing the modules registers every kernel in `kernels` (float,
quantized and hybrid forms alike); its registrations are the backend's supported-op list."""
from . import (batch_matmul, circle_ops, conv2d, custom, densify,  # noqa: F401
               depthwise_conv2d, dynamic_ops, elementwise, fully_connected, gather_select, gru,
               hashtable_lookup, hybrid_batch_matmul, hybrid_conv, hybrid_embedding_lookup,
               hybrid_fully_connected, hybrid_lstm, hybrid_rnn, hybrid_svdf, lstm, misc_ops,
               nms_topk, pool_resize, quant, random_ops, reduce_softmax, rnn, segment_scatter,
               shape_ops, slice_split, svdf, transpose_conv)
from .common import kernels

__all__ = ["kernels"]
