"""What the cpu quantized kernels import: their base (core/ops/quant_base.py QuantOpKernel), the
dtypes, the form predicates and the cpu registry.

Quantized forms of an op (int8/uint8/int16 tensors with scale and zero point) are separate
kernel classes from the float ones, registered in the cpu registry under the same keys with
`when=quantized` (core/ops/forms.py), and per input dtype where the 8-bit and int16 forms are
different kernels (`register(key, dtypes=..., when=quantized)`). The registry picks the
quantized class when its form applies; otherwise the float kernel (or a hybrid one) runs the op.
"""
from __future__ import annotations

from .....core.ops.forms import is_quantized, quantized, quantized_input
from .....core.ops.quant_base import I8, I16, Q_DTYPES, U8, QuantOpKernel
from ..common import register

__all__ = ["Q_DTYPES", "I8", "U8", "I16", "QuantOpKernel", "is_quantized",
           "quantized", "quantized_input", "register"]
