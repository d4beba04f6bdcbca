"""The cpu backend's kernels. Importing the modules fills `kernels`; its keys are the
backend's supported-op list."""
from . import (conv2d, densify, depthwise_conv2d, dynamic_ops, elementwise,  # noqa: F401
               gather_select, matmul, nms_topk, pool_resize, reduce_softmax, shape_ops,
               slice_split)
from . import misc_ops  # noqa: F401,E402
from . import segment_scatter  # noqa: F401,E402
from . import random_ops  # noqa: F401,E402
from . import rnn  # noqa: F401,E402
from . import transpose_conv  # noqa: F401,E402
from . import circle_ops  # noqa: F401,E402
from . import hybrid  # noqa: F401,E402
from . import custom  # noqa: F401,E402
from . import hashtable_lookup  # noqa: F401,E402
from .common import kernels
from .hybrid import hybrid_kernel_for
from .quant import quant_kernel_for


def _select(op, graph):
    """Quantized kernels for quantized ops, hybrid ones for int8-weight (dynamic-range) forms
    of FC/Conv/BMM/..., else None (the registered float kernel)."""
    return quant_kernel_for(op, graph) or hybrid_kernel_for(op, graph)


kernels.select = _select

__all__ = ["kernels"]
