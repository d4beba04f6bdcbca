"""Where the quantized acl_neon kernels' base `QuantNeon` was defined; it lives in base.py now.
This re-export keeps `from .quant import QuantNeon` working for modules not yet moved over.
The quantized CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED kernels are in conv2d.py,
depthwise_conv2d.py and fully_connected.py."""
from .base import QuantNeon  # noqa: F401

__all__ = ["QuantNeon"]
