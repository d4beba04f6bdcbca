"""Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE), as TFLite runs them.

A RESOURCE tensor holds an int32 id. VarHandle maps (container, shared_name) to an id, the
same for every subgraph of the session; the values live in the session's state, so they
survive across runs and are shared by all subgraphs (CallOnce's init subgraph included).

Natively too: where the op's resource comes from a VAR_HANDLE of the same subgraph (its id
known at compile time) and its tensors have fixed shapes, READ_VARIABLE and ASSIGN_VARIABLE
bind native steps (core/exec/native.py) that copy between the op's tensor and the variable's
storage, so they do not break native segments; VAR_HANDLE writes its id natively. The storage
of a variable is one array kept while its shape and dtype stay the same (an assignment of
another shape replaces it, and the native steps then refuse the size they were bound for),
with an `assigned` flag: reading a variable no ASSIGN_VARIABLE wrote is an ExecutionError
either way.
"""
from __future__ import annotations

import numpy as np

from ..core.backend import HostTensor, Kernel, host_array
from ..core.exec import native
from ..errors import ExecutionError


class Variables:
    """One session's resource variables: id per (container, name); per id the storage array,
    its native slot and an assigned flag (a 1-byte array native steps read and set)."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, str], int] = {}
        self.values: dict[int, np.ndarray] = {}
        self.flags: dict[int, np.ndarray] = {}
        self.slots: dict[int, object] = {}

    def id_for(self, container: str, name: str) -> int:
        return self.ids.setdefault((container, name), len(self.ids))

    def flag(self, rid: int) -> np.ndarray:
        f = self.flags.get(rid)
        if f is None:
            f = self.flags[rid] = np.zeros(1, np.uint8)
        return f

    def assigned(self, rid: int) -> bool:
        return rid in self.values and bool(self.flag(rid)[0])

    def assign(self, rid: int, value: np.ndarray) -> None:
        """Store `value` (copied): in place when the storage has its shape and dtype."""
        v = self.values.get(rid)
        if v is not None and v.shape == value.shape and v.dtype == value.dtype:
            np.copyto(v, value)
        else:
            self.values[rid] = np.array(value, copy=True)
            if rid in self.slots:
                native.set_slot(self.slots[rid], self.values[rid])
        self.flag(rid)[0] = 1

    def storage(self, rid: int, shape: tuple, dtype: np.dtype):
        """(storage slot, flag slot) for native steps on variable `rid` of this shape and
        dtype, the storage allocated (unassigned) if the variable has none yet; None when it
        holds another shape or dtype."""
        v = self.values.get(rid)
        if v is None:
            v = self.values[rid] = np.zeros(shape, dtype)
        elif v.shape != tuple(shape) or v.dtype != dtype:
            return None
        if rid not in self.slots:
            self.slots[rid] = native._native.slot(v)
        flag = self.flag(rid)
        if ("flag", rid) not in self.slots:
            self.slots[("flag", rid)] = native._native.slot(flag)
        return self.slots[rid], self.slots[("flag", rid)]

    def reset(self) -> None:
        """Every variable unassigned again (Session.reset_state)."""
        for f in self.flags.values():
            f[0] = 0


def resource_id(t) -> int:
    """The variable id a RESOURCE tensor holds."""
    return int(host_array(t).reshape(-1)[0])


def variables_of(ctx) -> Variables:
    state = ctx.data.compiler.state
    if "variables" not in state:
        state["variables"] = Variables()
    return state["variables"]


def handle_id(ctx, params, op_index: int) -> int:
    """The variable id of a VAR_HANDLE with these params in the context's subgraph."""
    name = params.get("shared_name") or f"__anonymous_{ctx.data.subgraph_index}_{op_index}"
    return variables_of(ctx).id_for(params.get("container") or "", name)


def static_id(kernel) -> int | None:
    """The id of the variable the op's resource input names, when a VAR_HANDLE of the same
    subgraph produces it (known at compile time); None otherwise."""
    g, res = kernel.ctx.data.graph, kernel.op.inputs[0]
    for op in g.operations.values():
        if res in op.outputs:
            return handle_id(kernel.ctx, op.params, op.index) if op.type == "VarHandle" \
                else None
    return None


class VarHandleLayer(Kernel):
    shape_from_run = True
    follows_buffers = True

    def validate(self) -> None:
        self.id = handle_id(self.ctx, self.op.params, self.op.index)

    def bind(self):
        out = self.outputs[0]
        if not native.available() or not isinstance(out, HostTensor) or out.is_dynamic or \
                out.dtype != np.int32 or tuple(out.shape) not in ((), (1,)):
            return None
        return native._native.const_step(native.slot_of(out),
                                         np.array([self.id], np.int32).tobytes())

    def run(self) -> None:
        self.outputs[0].buffer[...] = self.id


class VariableOp(Kernel):
    """Shared by READ_VARIABLE and ASSIGN_VARIABLE: the variables, the native binding."""

    shape_from_run = True
    follows_buffers = True

    def validate(self) -> None:
        self.vars = variables_of(self.ctx)

    def value_tensor(self):
        """The op's tensor that the variable's value is copied to or from."""
        raise NotImplementedError

    def bind(self):
        """The native step copying between value_tensor() and the variable's storage, where
        the variable is known at compile time and the tensor is a host tensor of fixed shape;
        None otherwise (run() in Python)."""
        t = self.value_tensor()
        if not native.available() or not isinstance(t, HostTensor) or t.is_dynamic \
                or t.dtype is None:
            return None           # a device tensor (acl_cl) or a shape known at run time
        rid = static_id(self)
        slots = None if rid is None else self.vars.storage(rid, tuple(t.shape), t.dtype)
        if slots is None:
            return None
        return self.step(rid, *slots, native.slot_of(t), t.nbytes)

    def step(self, rid: int, var, flag, slot, nbytes: int):
        raise NotImplementedError

    def unset(self, rid: int) -> str:
        return (f"op #{self.op.index} {self.op.name}: reads variable {rid} before any "
                f"ASSIGN_VARIABLE wrote it")


class ReadVariableLayer(VariableOp):
    def value_tensor(self):
        return self.outputs[0]

    def step(self, rid, var, flag, slot, nbytes):
        return native._native.variable_read_step(var, flag, slot, nbytes, f"variable {rid}",
                                                 self.unset(rid))

    def run(self) -> None:
        rid = resource_id(self.inputs[0])
        if not self.vars.assigned(rid):
            raise ExecutionError(self.unset(rid))
        value, out = self.vars.values[rid], self.outputs[0]
        if value.dtype != out.dtype:
            raise ExecutionError(f"op #{self.op.index} {self.op.name}: variable {rid} holds "
                                 f"{value.dtype}, the op reads {out.dtype}")
        if value.shape != tuple(out.shape):
            if not out.is_dynamic:
                raise ExecutionError(f"op #{self.op.index} {self.op.name}: variable {rid} has "
                                     f"shape {value.shape}, the op reads {tuple(out.shape)}")
            out.resize(value.shape)
        np.copyto(out.buffer, value)


class AssignVariableLayer(VariableOp):
    def value_tensor(self):
        return self.inputs[1]

    def step(self, rid, var, flag, slot, nbytes):
        return native._native.variable_assign_step(var, flag, slot, nbytes, f"variable {rid}")

    def run(self) -> None:
        rid = resource_id(self.inputs[0])
        self.vars.assign(rid, np.asarray(host_array(self.inputs[1])))
