"""Permute: copies one operand from one backend's tensor to another's.

Host to host it is a NumPy copy. Device backends give their tensors `to_host(out)` and
`from_host(array)`; Permute calls them when a side is not a host array. Between a float32 and a
quantized tensor (a quantized model's inputs and outputs the user asked to see as float), the
host copy quantizes or dequantizes as TFLite's QUANTIZE/DEQUANTIZE do. A plain host-to-host
copy of fixed shape is a native step (it does not end a native segment).
"""
from __future__ import annotations

import numpy as np

from ..core.backend import HostTensor, Kernel
from ..core.backend.quantization import channel_axis, dequantize, quantize
from ..core.exec import native

F32 = np.dtype(np.float32)


class PermuteLayer(Kernel):
    """Copy src -> dst, reading both buffers at run time (IO tensors rebind every run)."""
    follows_buffers = True

    def validate(self) -> None:
        src, dst = self.inputs[0], self.outputs[0]
        if src is None:
            raise self.fail("Permute has no source tensor")
        host_src, host_dst = isinstance(src, HostTensor), isinstance(dst, HostTensor)
        self.convert = None
        if src.dtype != dst.dtype:
            self.convert = self._converter(src, dst)
            if not (host_src and host_dst):
                raise self.fail(f"Permute converting {src.dtype} to {dst.dtype} needs host tensors")
        if host_src and host_dst:
            self.run = self._host_to_host
        elif host_src:
            self.run = self._host_to_device
        elif host_dst:
            self.run = self._device_to_host
        else:
            self.staging = np.empty(src.shape, src.dtype)
            self.run = self._device_to_device

    def bind(self):
        """A native copy between two host tensors of one dtype and fixed shapes."""
        src, dst = self.inputs[0], self.outputs[0]
        if (not native.available() or self.convert is not None or self.run != self._host_to_host
                or src.is_dynamic or dst.is_dynamic or tuple(src.shape) != tuple(dst.shape)):
            return None
        return native.copy_step(src, dst, src.nbytes)

    def _host_out(self, shape) -> np.ndarray:
        """The host destination's buffer, allocated when unbound (a child subgraph's output
        that its caller adopts) or shaped otherwise (a dynamic output)."""
        dst = self.outputs[0]
        out = dst.buffer
        if out is None or out.shape != tuple(shape):
            dst.resize(tuple(shape))
            out = dst.buffer
        return out

    def _host_to_host(self) -> None:
        src = self.inputs[0].buffer
        out = self._host_out(src.shape)
        if self.convert is None:
            np.copyto(out, src)
        else:
            self.convert(src, out)

    def _converter(self, src, dst):
        """quantize (float32 -> quantized) or dequantize (quantized -> float32) into `out`."""
        if src.dtype == F32 and dst.quant is not None:
            q = dst.quant
            return lambda a, out: np.copyto(out, quantize(a, q.scale, q.zero_point, dst.dtype,
                                                          channel_axis(q)))
        if dst.dtype == F32 and src.quant is not None:
            q = src.quant
            return lambda a, out: dequantize(a, q.scale, q.zero_point, channel_axis(q), out=out)
        raise self.fail(f"Permute between dtypes {src.dtype} and {dst.dtype} is not supported")

    def _host_to_device(self) -> None:
        self.outputs[0].from_host(self.inputs[0].buffer)

    def _device_to_host(self) -> None:
        src = self.inputs[0]
        src.to_host(self._host_out(src.shape))

    def _device_to_device(self) -> None:
        self.inputs[0].to_host(self.staging)
        self.outputs[0].from_host(self.staging)
