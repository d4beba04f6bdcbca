"""The backend API that every backend implements (names follow onert's)."""
from .backend import Backend, BackendContext, ContextData, FusionProposal, IConfig
from .host_context import HostBackendContext
from .kernel import Kernel, KernelRefusal, KernelRegistry
from .memory_planner import PLANNERS, Request, get_planner
from .registry import TensorRegistry
from .tensor import HostTensor, ITensor, host_array

ITensorRegistry = TensorRegistry

__all__ = ["Backend", "BackendContext", "ContextData", "FusionProposal", "IConfig",
           "HostBackendContext", "Kernel", "KernelRefusal", "KernelRegistry", "PLANNERS", "Request",
           "get_planner", "TensorRegistry", "ITensorRegistry", "HostTensor", "ITensor", "host_array"]
