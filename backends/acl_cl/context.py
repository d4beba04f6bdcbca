"""The acl_cl BackendContext: device tensors in one planned allocation (variable tensors, the
recurrent state that outlives a run, and constants in buffers of their own), OpenCL kernels."""
from __future__ import annotations

from ...core.backend import HostBackendContext
from ...core.backend.memory_planner import Request, get_planner
from ...errors import CompileError
from .tensor import ClTensor


class ClContext(HostBackendContext):
    """One session's subgraph on one OpenCL device (`runtime`)."""

    def __init__(self, backend, data, kernels, runtime) -> None:
        super().__init__(backend, data, kernels)
        self.runtime = runtime
        self.device_buffer = None

    def gen_tensors(self):
        g, rt = self.data.graph, self.runtime
        spans = self.lifetimes()
        requests = []
        for idx in sorted(self.data.operands):
            operand = g.operands[idx]
            if operand.dynamic:
                raise CompileError(f"acl_cl: tensor #{idx} {operand.name!r} is shaped at run "
                                   f"time; acl_cl holds only static shapes")
            why = self.data.oversize(operand.shape, operand.dtype) if operand.dtype else None
            if why is not None:
                raise CompileError(f"acl_cl: tensor #{idx} {operand.name!r} of shape "
                                   f"{operand.shape} {why}")
            t = ClTensor(operand, rt)
            if operand.is_variable:
                t.allocate_variable()
            elif operand.is_constant:
                t.upload_constant()
            else:
                first, last = spans.get(idx, (0, 0))
                size = -(-max(t.nbytes, 4) // rt.align) * rt.align   # keeps offsets aligned
                requests.append(Request(idx, size, first, last))
            self.tensor_registry.set_native_tensor(idx, t)
        offsets, size = get_planner(self.data.options.get("memory_planner", "WIC"))(requests)
        try:
            self.device_buffer = rt.buffer(size)
            for idx, off in offsets.items():
                self.tensor_registry.get_native_itensor(idx).bind(self.device_buffer, off)
        except Exception as e:
            raise CompileError(f"acl_cl: allocating {size} bytes on {rt.name} failed: {e}") from None
        return self.tensor_registry

    @property
    def arena_bytes(self) -> int:
        return 0 if self.device_buffer is None else int(self.device_buffer.size)

    def release(self) -> None:
        for t in self.tensor_registry.native_tensors():
            t.release()
        self.device_buffer = None
