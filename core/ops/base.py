"""The shared base of every backend's kernels for an op (TFLite Micro's Prepare/OpData half):
the dtype support check, working-buffer limits, fused activations and convolution padding.

`OpKernel` subclasses in core/ops/<op>.py hold an op's parameters, validation, geometry and
quantized precomputation; a backend's kernel subclasses them and adds its compute (`run`, and
the parts of `prepare` only it needs). `backend_id` names the backend in refusals: the registry
sets it on each class it registers (KernelRegistry.register)."""
from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np

from ..backend.kernel import Kernel
from ..ir import Graph, Operation
from .forms import quantized

F32 = frozenset({np.dtype(np.float32)})
NUMERIC = frozenset(np.dtype(t) for t in (np.float32, np.int32, np.int64))
ANY = None   # accept any dtype NumPy can hold


def dtypes(*names: str) -> frozenset:
    """A frozenset of NumPy dtypes from their names."""
    return frozenset(np.dtype(n) for n in names)


class OpKernel(Kernel):
    """A kernel on host buffers; `dtypes` lists the accepted dtypes of the data input (None:
    any). `subtype_dtypes`, where given, overrides `dtypes` per op sub-type (ADD vs DIV, ...).
    `data` is the input whose dtype decides support (None: the first present input).
    `backend_id` names the backend in refusals (set on registration)."""

    dtypes: frozenset | None = F32
    subtype_dtypes: dict[str, frozenset | None] = {}
    data: int | None = None
    backend_id = ""

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        if cls.data is None:
            index = next((i for i in op.inputs if i >= 0), None)
            if index is None:
                return True, ""
        elif len(op.inputs) <= cls.data or op.inputs[cls.data] < 0:
            return False, f"{op.name} has no input {cls.data} (it has {len(op.inputs)} inputs)"
        else:
            index = op.inputs[cls.data]
        operand = graph.operands[index]
        if operand.dtype is None:
            return False, f"{cls.backend_id} cannot hold {operand.type_name} tensors"
        accepted = cls.subtype_dtypes.get(op.subtype, cls.dtypes) if op.subtype else cls.dtypes
        if accepted is not None and operand.dtype not in accepted:
            names = ", ".join(sorted(str(d) for d in accepted))
            return False, f"{cls.backend_id} {op.type} supports {names}, not {operand.dtype}"
        if operand.is_quantized and not getattr(cls, "quantized", False):
            return False, (f"{cls.backend_id} {op.type} has no quantized ({operand.dtype}) "
                           f"kernel yet")
        return True, ""

    def check_scratch(self, what: str, shape: tuple, dtype: np.dtype) -> None:
        """Refuse a working buffer over the session's max_tensor_bytes (as gen_tensors refuses
        tensors) before allocating it."""
        ctx = getattr(self, "ctx", None)     # None: a plan built outside configure()
        why = ctx.data.oversize(shape, dtype) if ctx is not None else None
        if why is not None:
            raise self.fail(f"its {what} of shape {tuple(shape)} {why}")

    def buf(self, i: int) -> np.ndarray | None:
        t = self.inputs[i] if i < len(self.inputs) else None
        return None if t is None else t.buffer

    @property
    def out(self) -> np.ndarray:
        return self.outputs[0].buffer


def activation(name: str | None) -> Callable[[np.ndarray], None] | None:
    """In-place fused activation for a buffer, or None for NONE."""
    if name in (None, "NONE"):
        return None
    if name == "RELU":
        return lambda a: np.maximum(a, 0, out=a)
    if name == "RELU6":
        return lambda a: np.clip(a, 0, 6, out=a)
    if name == "RELU_N1_TO_1":
        return lambda a: np.clip(a, -1, 1, out=a)
    if name == "TANH":
        return lambda a: np.tanh(a, out=a)
    if name == "SIGN_BIT":
        return lambda a: np.copyto(a, np.signbit(a).astype(a.dtype))
    raise ValueError(f"unknown fused activation {name!r}")


CLAMPS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def clamp_activation(name: str | None):
    """The fused activation of TFLite's float pooling and convolution kernels: a clamp to the
    range of RELU, RELU6 or RELU_N1_TO_1; any other activation (TANH, SIGN_BIT) has no range
    and is ignored, as the interpreter ignores it."""
    return activation(name) if name in CLAMPS else None


def same_padding(size: int, k: int, stride: int, dilation: int, out: int) -> tuple[int, int]:
    """(before, after) padding of TFLite's SAME scheme."""
    eff = (k - 1) * dilation + 1
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def conv_padding(padding: str, h: int, w: int, kh: int, kw: int, sh: int, sw: int, dh: int,
                 dw: int, oh: int, ow: int) -> tuple[int, int, int, int]:
    if padding == "SAME":
        return same_padding(h, kh, sh, dh, oh) + same_padding(w, kw, sw, dw, ow)
    return 0, 0, 0, 0


@lru_cache(maxsize=None)
def refusing_as(base: type, backend_id: str) -> type:
    """`base` (a core op class) naming `backend_id` in its refusals: for a backend that checks
    with the core's `supports` that a form of an op exists (e.g. which quantized dtypes TFLite
    takes) while its own kernel computes it another way."""
    return type(base.__name__, (base,), {"backend_id": backend_id, "__module__": base.__module__})


def quantized_form_supports(kernel: type, op: Operation, graph: Graph) -> tuple[bool, str]:
    """Whether a quantized `op` is a form TFLite has, by the checks of `kernel.quantized_form`
    (the op's core Q<Op>Base), with `kernel.backend_id` in the refusal: for kernels that move
    quantized values without the quantized kernel (byte copies). (True, "") when the op is not
    quantized or the kernel names no quantized form."""
    form = getattr(kernel, "quantized_form", None)
    if form is None or not quantized(op, graph):
        return True, ""
    return refusing_as(form, kernel.backend_id).supports(op, graph)
