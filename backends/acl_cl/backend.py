"""The acl_cl backend: config (device discovery, supported ops) and the process-wide runtimes."""
from __future__ import annotations

import threading

from ...core.backend import Backend, ContextData, IConfig
from ...core.ir import Graph, Operation
from ...errors import CompileError
from .device import INSTALL, describe, import_cl, select_device


class ClConfig(IConfig):
    id = "acl_cl"
    support_permutation = True

    def __init__(self) -> None:
        self.cl = None
        self.default_device = None

    def initialize(self) -> bool:
        try:
            self.cl = import_cl()
            self.default_device = select_device(self.cl)
        except (ImportError, LookupError) as e:
            self.unavailable_reason = f"acl_cl needs an OpenCL device: {e}"
            return False
        return True

    def supports(self, op: Operation, graph: Graph) -> tuple[bool, str]:
        from .ops import kernels
        return kernels.supports(op, graph)

    def sync(self) -> None:
        backend = getattr(self, "backend", None)
        if backend is not None:
            for rt in list(backend.runtimes.values()):
                rt.finish()


class ClBackend(Backend):
    def __init__(self) -> None:
        self.config = ClConfig()
        self.config.backend = self
        self.runtimes: dict[tuple, object] = {}
        self._lock = threading.Lock()

    def runtime_for(self, options: dict):
        """The runtime of the device the session's `opencl` section asks for (shared by the
        sessions that ask for the same device and cache directory)."""
        from .runtime import ClRuntime
        cl = self.config.cl
        section = dict(options.get("opencl") or {})
        try:
            dev = (select_device(cl, section) if section.get("platform") is not None
                   or section.get("device") is not None else self.config.default_device)
        except LookupError as e:
            raise CompileError(f"acl_cl: {e}") from None
        key = (describe(dev), section.get("cache_dir"))
        with self._lock:
            rt = self.runtimes.get(key)
            if rt is None:
                try:
                    rt = self.runtimes[key] = ClRuntime(cl, dev, section.get("cache_dir"))
                except Exception as e:
                    raise CompileError(f"acl_cl: cannot open device {describe(dev)}: {e}; "
                                       f"({INSTALL})") from None
        return rt

    def new_context(self, data: ContextData):
        from .context import ClContext
        from .ops import kernels
        return ClContext(self, data, kernels, self.runtime_for(data.options))

    def destroy(self) -> None:
        with self._lock:
            for rt in self.runtimes.values():
                rt.release()
            self.runtimes.clear()
