"""KernelRegistry: one registration per kernel says its op key and form (dtypes, a predicate);
lookup picks the most specific registration that matches, supports() is the backend's check."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.backends.acl_neon.ops import kernels as neon_kernels
from onert_py.backends.cpu.ops import kernels as cpu_kernels
from onert_py.core.backend import Kernel, KernelRegistry
from onert_py.core.ir import Graph, Operation
from onert_py.core.ir.operand import Operand, Quantization
from onert_py.core.ops import forms


def graph_of(*operands: Operand) -> Graph:
    return Graph("g", operands={o.index: o for o in operands})


def operand(index: int, dtype, quant: bool = False, const: bool = False) -> Operand:
    q = Quantization(scale=np.array([0.5], np.float32), zero_point=np.array([0], np.int64)) \
        if quant else None
    return Operand(index=index, name=f"t{index}", shape=(1, 4), dtype=np.dtype(dtype), quant=q,
                   data=np.zeros((1, 4), dtype) if const else None)


class Plain(Kernel):
    @classmethod
    def supports(cls, op, graph):
        return True, ""


class Sub(Plain):
    pass


class Quant(Plain):
    pass


class QuantI16(Plain):
    pass


class Picky(Plain):
    @classmethod
    def supports(cls, op, graph):
        return False, "picky refuses"


class Broken(Plain):
    @classmethod
    def supports(cls, op, graph):
        return False, graph.operands[99].name     # a malformed op: KeyError / IndexError


@pytest.fixture
def reg() -> KernelRegistry:
    r = KernelRegistry("test")
    r.register("BinaryArithmetic")(Plain)
    r.register("BinaryArithmetic.MUL")(Sub)
    r.register("BinaryArithmetic", when=forms.quantized)(Quant)
    r.register("BinaryArithmetic", dtypes=(np.int16,), when=forms.quantized)(QuantI16)
    return r


def op(subtype: str | None = "ADD") -> Operation:
    return Operation(0, "BinaryArithmetic", "ADD", [0, 1], [2], subtype=subtype)


def test_lookup_order(reg: KernelRegistry) -> None:
    f32 = graph_of(operand(0, np.float32), operand(1, np.float32), operand(2, np.float32))
    i8 = graph_of(operand(0, np.int8, True), operand(1, np.int8, True), operand(2, np.int8, True))
    i16 = graph_of(operand(0, np.int16, True), operand(1, np.int16, True),
                   operand(2, np.int16, True))
    assert reg.lookup(op(), f32) is Plain
    assert reg.lookup(op("MUL"), f32) is Sub             # sub-type key before the type key
    assert reg.lookup(op("MUL"), i8) is Quant            # a form before any plain kernel
    assert reg.lookup(op("MUL"), i16) is QuantI16        # form and dtypes before the form
    assert reg.lookup(op(), None) is Plain               # no graph: plain registrations only
    assert reg.match(op("MUL"), i8).when is forms.quantized


def test_unquantized_int8_takes_the_plain_kernel(reg: KernelRegistry) -> None:
    g = graph_of(operand(0, np.int8), operand(1, np.int8), operand(2, np.int8))
    assert reg.lookup(op(), g) is Plain


def test_duplicates_are_refused(reg: KernelRegistry) -> None:
    with pytest.raises(ValueError, match="registered twice"):
        reg.register("BinaryArithmetic")(Sub)
    with pytest.raises(ValueError, match="registered twice"):
        reg.register("BinaryArithmetic", when=forms.quantized)(Sub)
    with pytest.raises(ValueError, match="registered twice"):     # overlapping dtypes
        reg.register("BinaryArithmetic", dtypes=(np.int16, np.int8), when=forms.quantized)(Sub)
    reg.register("BinaryArithmetic", dtypes=(np.int8,), when=forms.quantized)(Sub)   # disjoint


def test_supports_reasons(reg: KernelRegistry) -> None:
    g = graph_of(operand(0, np.float32), operand(1, np.float32), operand(2, np.float32))
    other = Operation(0, "Conv2D", "CONV_2D", [0, 1], [2])
    assert reg.supports(other, g) == (False, "test has no kernel for Conv2D")
    assert reg.supports(op(), g) == (True, "")
    reg.register("Pool2D")(Picky)
    reg.register("Gather")(Broken)
    pool = Operation(0, "Pool2D", "MAX_POOL_2D", [0], [2], subtype="MAX_POOL_2D")
    assert reg.supports(pool, g) == (False, "picky refuses")
    ok, why = reg.supports(Operation(0, "Gather", "GATHER", [0, 1], [2]), g)
    assert not ok and "cannot read the op's operands" in why


def test_registrations_list_every_form(reg: KernelRegistry) -> None:
    described = [r.describe() for r in reg.registrations()]
    assert described == ["BinaryArithmetic [int16] (quantized)", "BinaryArithmetic (quantized)",
                         "BinaryArithmetic", "BinaryArithmetic.MUL"]


def test_backends_register_quantized_and_hybrid_forms_in_one_registry() -> None:
    forms_of = {}
    for r in cpu_kernels.registrations():
        forms_of.setdefault(r.key, set()).add(getattr(r.when, "__name__", None))
    assert {None, "quantized", "hybrid"} <= forms_of["FullyConnected"]
    assert "quantized" in forms_of["Conv2D"] and "hybrid" in forms_of["Conv2D"]
    neon = {r.key: r for r in neon_kernels.registrations() if r.when is forms.quantized}
    assert "Conv2D" in neon and "Reduce.MEAN" in neon
