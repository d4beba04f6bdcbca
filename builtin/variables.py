"""Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE), as TFLite runs them.

A RESOURCE tensor holds an int32 id. VarHandle maps (container, shared_name) to an id, the
same for every subgraph of the session; the values live in the session's state, so they
survive across runs and are shared by all subgraphs (CallOnce's init subgraph included).
"""
from __future__ import annotations

import numpy as np

from ..core.backend import Kernel, host_array
from ..errors import ExecutionError


class Variables:
    """One session's resource variables."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, str], int] = {}
        self.values: dict[int, np.ndarray] = {}

    def id_for(self, container: str, name: str) -> int:
        return self.ids.setdefault((container, name), len(self.ids))


def resource_id(t) -> int:
    """The variable id a RESOURCE tensor holds."""
    return int(host_array(t).reshape(-1)[0])


def variables_of(ctx) -> Variables:
    state = ctx.data.compiler.state
    if "variables" not in state:
        state["variables"] = Variables()
    return state["variables"]


class VarHandleLayer(Kernel):
    shape_from_run = True

    def validate(self) -> None:
        p = self.op.params
        name = p.get("shared_name") or f"__anonymous_{self.ctx.data.subgraph_index}_{self.op.index}"
        self.id = variables_of(self.ctx).id_for(p.get("container") or "", name)

    def run(self) -> None:
        self.outputs[0].buffer[...] = self.id


class ReadVariableLayer(Kernel):
    shape_from_run = True

    def validate(self) -> None:
        self.vars = variables_of(self.ctx)

    def run(self) -> None:
        rid = resource_id(self.inputs[0])
        if rid not in self.vars.values:
            raise ExecutionError(f"op #{self.op.index} {self.op.name}: reads variable {rid} "
                                 f"before any ASSIGN_VARIABLE wrote it")
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


class AssignVariableLayer(Kernel):
    shape_from_run = True

    def validate(self) -> None:
        self.vars = variables_of(self.ctx)

    def run(self) -> None:
        rid = resource_id(self.inputs[0])
        self.vars.values[rid] = np.array(host_array(self.inputs[1]), copy=True)
