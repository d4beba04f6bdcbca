"""Permute: copies one operand from one backend's tensor to another's.

Host to host it is a NumPy copy. Device backends give their tensors `to_host(out)` and
`from_host(array)`; Permute calls them when a side is not a host array.
"""
from __future__ import annotations

import numpy as np

from ..core.backend import HostTensor, Kernel


class PermuteLayer(Kernel):
    """Copy src -> dst, reading both buffers at run time (IO tensors rebind every run)."""

    def validate(self) -> None:
        src, dst = self.inputs[0], self.outputs[0]
        if src is None:
            raise self.fail("Permute has no source tensor")
        if src.dtype != dst.dtype:
            raise self.fail(f"Permute between dtypes {src.dtype} and {dst.dtype} is not supported")
        host_src, host_dst = isinstance(src, HostTensor), isinstance(dst, HostTensor)
        if host_src and host_dst:
            self.run = self._host_to_host
        elif host_src:
            self.run = self._host_to_device
        elif host_dst:
            self.run = self._device_to_host
        else:
            self.staging = np.empty(src.shape, src.dtype)
            self.run = self._device_to_device

    def _host_to_host(self) -> None:
        src, dst = self.inputs[0].buffer, self.outputs[0]
        out = dst.buffer
        if out is None or out.shape != src.shape:   # an unbound or dynamic output
            dst.resize(src.shape)
            out = dst.buffer
        np.copyto(out, src)

    def _host_to_device(self) -> None:
        self.outputs[0].from_host(self.inputs[0].buffer)

    def _device_to_host(self) -> None:
        self.inputs[0].to_host(self.outputs[0].buffer)

    def _device_to_device(self) -> None:
        self.inputs[0].to_host(self.staging)
        self.outputs[0].from_host(self.staging)
