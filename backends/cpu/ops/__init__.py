"""The cpu backend's kernels. Importing the modules registers every kernel in `kernels` (float,
quantized and hybrid forms alike); its registrations are the backend's supported-op list."""
from . import (arg_min_max, bucketize, circle_ops, conv2d, cumsum, custom,  # noqa: F401
               densify, depthwise_conv2d, dynamic_ops, elementwise, gather_select,
               hashtable_lookup, hybrid, hybrid_more, hybrid_rnn, hybrid_svdf, matmul,
               misc_ops, non_max_suppression, norm, pool2d, pool_resize, quant, random_ops,
               reduce, resize, rnn, rope, segment_scatter, shape_ops, slice_split, softmax,
               topk_v2, transpose_conv)
from .common import kernels

__all__ = ["kernels"]
