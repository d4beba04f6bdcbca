"""Shared pieces of acl_cl's quantized 8-bit kernels (conv2d, depthwise_conv2d,
fully_connected, quant_binary, quant_move, quant_pool2d, quant_reduce, quant_softmax) and its
recurrent ones: the op's core class (core/ops' `Q<Op>Base`, TFLite's Prepare) run as a "shadow"
on host views of the tensors: its validate() checks the op and precomputes multipliers, tables
and loop kinds exactly as every backend's kernel does, and the device kernels upload those
values. Each quantized class is registered under its op's key with `when=quantized_8bit`
(core/ops/forms.py)."""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import is_8bit_quantized, quantized_8bit
from .common import ClKernel, register

I8, U8, I32 = np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int32)
Q8 = frozenset({I8, U8})
CL_TYPE = {I8: "char", U8: "uchar", np.dtype(np.int16): "short"}


class HostView:
    """A tensor as the host kernels see it: `buffer` is the constant's data (or zeros of the
    tensor's shape for computed tensors: validate/prepare of a shadow never read values)."""

    def __init__(self, t) -> None:
        self._t = t
        data = getattr(t, "data", None)
        self.buffer = (np.asarray(data).reshape(t.shape) if data is not None
                       else np.zeros(tuple(t.shape), t.dtype))

    def __getattr__(self, name):
        return getattr(self._t, name)


def host_shadow(kernel, cls: type, prepare: bool = False):
    """The core class `cls` for `kernel`'s op on host views of its tensors, validated (and
    prepared when asked): the checks and precomputed values every backend shares."""
    k = cls.__new__(cls)
    k.op, k.ctx = kernel.op, None
    k.inputs = [None if t is None else HostView(t) for t in kernel.inputs]
    k.outputs = [HostView(t) for t in kernel.outputs]
    k.validate()
    if prepare:
        k.prepare()
    return k


class QClKernel(ClKernel):
    """A quantized acl_cl kernel: 8-bit, static shapes; `shadow()` gives the op's core class
    (`base_class`), validated (and prepared when asked) on host views."""

    in_types = out_types = Q8
    base_class: type | dict     # the op's core Q<Op>Base (or one per subtype)

    @classmethod
    def supports(cls, op, graph):
        for i in (*op.inputs, *op.outputs):
            o = graph.operands[i] if i >= 0 else None
            if o is not None and o.dtype in Q8 and not is_8bit_quantized(o):
                return False, (f"acl_cl quantized {op.type}: tensor #{i} is 8-bit without "
                               f"quantization parameters")
        return super().supports(op, graph)

    def shadow(self, prepare: bool = False):
        cls = self.base_class
        return host_shadow(self, cls[self.op.subtype] if isinstance(cls, dict) else cls, prepare)

    def qopts(self, dtype) -> str:
        return f"-DQT={CL_TYPE[np.dtype(dtype)]}"


__all__ = ["HostView", "QClKernel", "host_shadow", "is_8bit_quantized", "quantized_8bit",
           "register", "I8", "U8", "I32", "Q8", "CL_TYPE"]
