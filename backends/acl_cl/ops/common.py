"""The acl_cl kernel base: validate in configure, set kernel arguments in prepare, enqueue in
run (no finish: the queue is in order and the executor waits where data leaves the device)."""
from __future__ import annotations

import numpy as np

from ....core.backend import Kernel, KernelRegistry
from ....core.ir import Graph, Operation
from ....core.ops.base import quantized_form_supports
from ....errors import CompileError, ExecutionError

kernels = KernelRegistry("acl_cl")
register = kernels.register

F32 = np.dtype(np.float32)
I32 = frozenset({np.dtype(np.int32), np.dtype(np.int64)})
INDEX = frozenset({np.dtype(np.int32)})
BOOL = frozenset({np.dtype(np.bool_)})
MAX_RANK = 6
CLAMP = {None: (-np.inf, np.inf), "NONE": (-np.inf, np.inf), "RELU": (0.0, np.inf),
         "RELU6": (0.0, 6.0), "RELU_N1_TO_1": (-1.0, 1.0)}


class ClKernel(Kernel):
    """`params_at`: input positions holding parameters (axes, shapes, paddings) that must be
    constant int32/int64 tensors; every other tensor must be float32."""

    params_at: tuple[int, ...] = ()
    index_at: tuple[int, ...] = ()          # inputs of int32 indices (computed or constant)
    index_types: frozenset = frozenset({np.dtype(np.int32)})
    in_types: frozenset = frozenset({F32})
    out_types: frozenset = frozenset({F32})
    max_rank = MAX_RANK

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        for pos, i in enumerate(op.inputs):
            if i < 0:
                continue
            o = graph.operands[i]
            if pos in cls.params_at:
                if o.dtype not in I32 or not o.is_constant:
                    return False, (f"acl_cl {op.type} needs input {pos} as a constant int32 "
                                   f"tensor (got {'a computed' if not o.is_constant else o.type_name})")
                continue
            types = cls.index_types if pos in cls.index_at else cls.in_types
            ok, why = cls._check_operand(op, o, f"input {pos}", types)
            if not ok:
                return ok, why
        for o in (graph.operands[i] for i in op.outputs if i >= 0):
            ok, why = cls._check_operand(op, o, "output", cls.out_types)
            if not ok:
                return ok, why
        return cls.check_params(op, graph)

    @classmethod
    def _check_operand(cls, op, o, what, types=frozenset({F32})) -> tuple[bool, str]:
        if o.dtype not in types or (o.is_quantized and o.dtype == F32):
            names = "/".join(sorted(t.name for t in types))
            return False, f"acl_cl {op.type} supports {names} here, {what} is {o.type_name}"
        if o.dynamic or (o.shape_signature is not None and -1 in o.shape_signature):
            return False, (f"acl_cl does not run ops on dynamic-shaped tensors yet ({what} "
                           f"#{o.index} is shaped at run time)")
        if len(o.shape) > cls.max_rank:
            return False, f"acl_cl {op.type} supports rank <= {cls.max_rank}, {what} has {len(o.shape)}"
        return True, ""

    @classmethod
    def check_params(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        return True, ""

    # ---- building and running -------------------------------------------------------
    @property
    def rt(self):
        return self.ctx.runtime

    def kernel(self, program: str, name: str, options: str = ""):
        """A kernel object of its own (arguments are set once, in prepare)."""
        try:
            return self.rt.cl.Kernel(self.rt.program(program, options), name)
        except CompileError as e:
            raise self.fail(f"kernel {name} ({program}): {e}") from None

    def const_buffer(self, array: np.ndarray):
        a = np.ascontiguousarray(array)
        return self.rt.buffer(a.nbytes, a if a.nbytes else np.zeros(1, a.dtype))

    def prepare(self) -> None:
        self.launches: list = []      # (kernel, global size, local size or None) or callables
        try:
            self.setup()
        except CompileError:
            raise
        except self.rt.cl.Error as e:
            raise self.fail(f"on device {self.rt.name}: {e}") from None

    def setup(self) -> None:
        raise NotImplementedError

    def launch(self, knl, gsize, lsize=None, *args) -> None:
        if args:
            knl.set_args(*args)
        gsize = tuple(max(int(g), 1) for g in gsize)
        self.launches.append((knl, gsize, lsize))

    def run(self) -> None:
        q, enqueue = self.rt.queue, self.rt.cl.enqueue_nd_range_kernel
        try:
            for item in self.launches:
                if callable(item):
                    item()
                else:
                    enqueue(q, item[0], item[1], item[2])
        except ExecutionError:
            raise
        except Exception as e:
            name = getattr(item, "function_name", None) or (
                item[0].function_name if isinstance(item, tuple) else "copy")
            raise ExecutionError(f"op #{self.op.index} {self.op.name}: kernel {name} on device "
                                 f"{self.rt.name} failed: {e}") from None

    def copy(self, src, dst, nbytes: int, src_off: int = 0, dst_off: int = 0) -> None:
        """A device-to-device copy step."""
        if nbytes <= 0:
            return
        cl, q = self.rt.cl, self.rt.queue
        self.launches.append(lambda: cl.enqueue_copy(q, dst, src, byte_count=nbytes,
                                                     src_offset=src_off, dst_offset=dst_off))

    def tin(self, i: int):
        return self.inputs[i] if i < len(self.inputs) else None

    def param_values(self, i: int) -> list[int]:
        return [int(v) for v in np.asarray(self.inputs[i].data).reshape(-1)]


DATA = frozenset(np.dtype(t) for t in (np.float32, np.int32, np.int64, np.int16, np.uint8,
                                       np.int8, np.bool_))
_BYTES = {1: ("uchar", np.uint8), 2: ("ushort", np.uint16), 4: ("uint", np.uint32),
          8: ("ulong", np.uint64)}


class ByteKernel(ClKernel):
    """A data-movement kernel that copies elements as bytes (an unsigned type of the element's
    size), so one kernel serves float32, int32, int64, int16, int8, uint8 and bool. The data
    tensors (every input but parameters and indices, and the outputs) must share one type;
    8-bit quantized ones must share one scale and zero point (bytes are not requantized)."""

    in_types = out_types = DATA
    # where set: the op's core Q<Op>Base (core/ops/base.py quantized_form_supports); a
    # quantized op must pass its checks, so acl_cl copies only the quantized forms TFLite has
    quantized_form: type | None = None

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        ok, why = quantized_form_supports(cls, op, graph)
        if not ok:
            return ok, why
        data = [graph.operands[i] for p, i in enumerate(op.inputs)
                if i >= 0 and p not in cls.params_at and p not in cls.index_at]
        data += [graph.operands[i] for i in op.outputs if i >= 0]
        ref = data[-1]
        for o in data:
            if o.dtype != ref.dtype:
                return False, (f"acl_cl {op.type} copies elements: tensor #{o.index} is "
                               f"{o.type_name}, the output {ref.type_name}")
            if bool(o.is_quantized) != bool(ref.is_quantized) or (
                    o.is_quantized and not same_quant(o, ref)):
                return False, (f"acl_cl {op.type} copies elements: tensor #{o.index} needs the "
                               f"output's scale and zero point")
        return True, ""

    @staticmethod
    def type_opts(dtype) -> str:
        """Build options naming the unsigned OpenCL type of `dtype`'s element size."""
        return f"-DT={_BYTES[np.dtype(dtype).itemsize][0]}"

    @staticmethod
    def raw(value, dtype):
        """`value` in `dtype`, as the unsigned scalar of the same bits (a kernel argument)."""
        size = np.dtype(dtype).itemsize
        return np.array(value, dtype).reshape(-1)[:1].view(_BYTES[size][1])[0]

    def zero_of(self, t) -> float:
        """The padding value of a tensor: 0, or its zero point when quantized."""
        if t.quant is not None and np.dtype(t.dtype).kind in "iu" and len(t.quant.zero_point):
            return int(np.asarray(t.quant.zero_point).reshape(-1)[0])
        return 0


def same_quant(a, b) -> bool:
    """Whether two quantized operands carry the same (float32) scales and zero points."""
    return (np.array_equal(np.asarray(a.quant.scale, np.float32),
                           np.asarray(b.quant.scale, np.float32))
            and np.array_equal(a.quant.zero_point, b.quant.zero_point))


def clamp_of(op) -> tuple[np.float32, np.float32]:
    lo, hi = CLAMP.get(op.params.get("fused_activation_function"), (-np.inf, np.inf))
    return np.float32(lo), np.float32(hi)


def check_act(op) -> tuple[bool, str]:
    act = op.params.get("fused_activation_function")
    if act not in CLAMP:
        return False, f"acl_cl {op.type} has no fused activation {act}"
    return True, ""


def strides_of(shape) -> list[int]:
    s, acc = [], 1
    for d in reversed(shape):
        s.append(acc)
        acc *= int(d)
    return s[::-1]


def reduce_meta(shape, axes) -> np.ndarray:
    """data.cl reduce6's meta (rank <= 6, padded in front): the kept dims and their element
    strides, then the reduced dims (`axes`, normalized and sorted) and theirs."""
    st = strides_of(shape)
    meta = []
    for dims in ([d for d in range(len(shape)) if d not in axes], axes):
        pad = 6 - len(dims)
        meta += [1] * pad + [int(shape[d]) for d in dims]
        meta += [0] * pad + [st[d] for d in dims]
    return np.array(meta, np.int32)


def bcast_meta(a_shape, b_shape, y_shape) -> np.ndarray:
    """The broadcast kernels' meta (rank <= 6, padded in front): the output's 6 dims, then a's
    and b's element strides (0 where a dim is broadcast)."""
    r = len(y_shape)
    meta = [1] * (6 - r) + list(y_shape)
    for shape in (a_shape, b_shape):
        shape = [1] * (r - len(shape)) + list(shape)
        meta += [0] * (6 - r) + [0 if d == 1 else s for d, s in zip(shape, strides_of(shape))]
    return np.array(meta, np.int32)
