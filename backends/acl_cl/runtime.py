"""One OpenCL device in use: its context, its in-order queue and its programs."""
from __future__ import annotations

from .device import describe
from .program_cache import ProgramCache


class ClRuntime:
    def __init__(self, cl, dev, cache_dir: str | None) -> None:
        self.cl, self.dev = cl, dev
        self.ctx = cl.Context([dev])
        self.queue = cl.CommandQueue(self.ctx)
        self.programs = ProgramCache(cl, self.ctx, dev, cache_dir)
        self.is_cpu = bool(dev.type & cl.device_type.CPU) or bool(
            getattr(dev, "host_unified_memory", False))
        self.align = max(64, dev.mem_base_addr_align // 8)
        self.name = describe(dev)

    def program(self, name: str, options: str = ""):
        return self.programs.get(name, options)

    def buffer(self, nbytes: int, host: "object | None" = None):
        """A read-write device buffer; on a CPU device in host memory (no copies to map)."""
        mf = self.cl.mem_flags
        flags = mf.READ_WRITE
        if host is not None:
            return self.cl.Buffer(self.ctx, flags | mf.COPY_HOST_PTR, hostbuf=host)
        if self.is_cpu:
            flags |= mf.ALLOC_HOST_PTR
        return self.cl.Buffer(self.ctx, flags, max(int(nbytes), 4))

    def finish(self) -> None:
        self.queue.finish()

    def release(self) -> None:
        try:
            self.queue.finish()
        except Exception:
            pass
        self.programs.programs.clear()
        self.queue = self.ctx = None
