"""The cpu backend's kernels. Importing the modules registers every kernel in `kernels` (float,
quantized and hybrid forms alike); its registrations are the backend's supported-op list."""
from . import (circle_ops, conv2d, custom, densify, depthwise_conv2d, dynamic_ops,  # noqa: F401
               elementwise, gather_select, hashtable_lookup, hybrid, hybrid_more, hybrid_rnn,
               hybrid_svdf, matmul, misc_ops, nms_topk, pool_resize, quant, random_ops,
               reduce_softmax, rnn, segment_scatter, shape_ops, slice_split, transpose_conv)
from . import add_n, bitwise, prelu, select  # noqa: F401
from .common import kernels

__all__ = ["kernels"]
