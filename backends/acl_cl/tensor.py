"""ClTensor: a tensor in a device buffer (a sub-buffer of the session's planned allocation,
or its own buffer for constants)."""
from __future__ import annotations

import numpy as np

from ...core.backend import ITensor
from ...errors import ExecutionError


class ClTensor(ITensor):
    def __init__(self, operand, runtime) -> None:
        super().__init__(operand)
        self.runtime = runtime
        self._buffer = None
        self.offset: int | None = None
        self.data = operand.data if operand.is_constant else None   # host copy of constants
        self.operand = operand

    @property
    def buffer(self):
        return self._buffer

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def bind(self, base, offset: int) -> None:
        """Take `nbytes` of the planned allocation `base` from `offset` (aligned for the device)."""
        self.offset = offset
        self._buffer = base.get_sub_region(offset, max(self.nbytes, 4))

    def upload_constant(self) -> None:
        host = np.ascontiguousarray(self.data, self.dtype)
        if host.nbytes == 0:
            host = np.zeros(1, self.dtype)
        self._buffer = self.runtime.buffer(host.nbytes, host)

    def allocate_variable(self) -> None:
        """A buffer of its own holding the initial value (state kept from run to run)."""
        self._buffer = self.runtime.buffer(max(self.nbytes, 4))
        self.reset_variable()

    def reset_variable(self) -> None:
        """Back to the initial value: the model's data, or zeros / the int8 zero point."""
        from ...core.backend.state import fill_initial
        host = np.empty(self.shape, self.dtype)
        fill_initial(host, self.operand)
        self.from_host(host)

    def to_host(self, out: np.ndarray) -> None:
        """Copy into `out` (blocking: this is where the executor waits for the device)."""
        if out.nbytes != self.nbytes:
            raise ExecutionError(f"acl_cl: tensor #{self.index} {self.name!r} of shape "
                                 f"{self.shape} cannot be read into an array of shape {out.shape}")
        if self.nbytes:
            dst = out if out.flags.c_contiguous else np.empty(out.shape, out.dtype)
            self.runtime.cl.enqueue_copy(self.runtime.queue, dst, self._buffer, is_blocking=True)
            if dst is not out:
                out[...] = dst

    def from_host(self, array: np.ndarray) -> None:
        """Copy `array` in (blocking, so the caller may reuse its array at once)."""
        if array.shape != self.shape and array.size != self.size:
            raise ExecutionError(f"acl_cl: tensor #{self.index} {self.name!r} of shape "
                                 f"{self.shape} cannot take an array of shape {array.shape}")
        if self.nbytes:
            src = np.ascontiguousarray(array, self.dtype)
            self.runtime.cl.enqueue_copy(self.runtime.queue, self._buffer, src, is_blocking=True)

    def to_host_array(self) -> np.ndarray:
        out = np.empty(self.shape, self.dtype)
        self.to_host(out)
        return out

    def release(self) -> None:
        self._buffer = None
