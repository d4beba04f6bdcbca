"""The cpu backend's kernels. Importing the modules registers every kernel in `kernels` (float,
quantized and hybrid forms alike); its registrations are the backend's supported-op list."""
from . import (circle_ops, concat, conv2d, custom, densify, depthwise_conv2d,  # noqa: F401
               elementwise, fill, gather, gather_select, hashtable_lookup, hybrid, hybrid_more,
               hybrid_rnn, hybrid_svdf, matmul, matrix_diag, misc_math, nms_topk, one_hot, pad,
               pool_resize, quant, random_ops, range, reduce_softmax, reshape, reverse, rnn,
               scatter, segment, shape, slice, space_batch, space_depth, split, tile,
               transpose, transpose_conv, unique, where)
from .common import kernels

__all__ = ["kernels"]
