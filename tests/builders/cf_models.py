"""Generated models with control flow (IF, WHILE, CALL_ONCE, resource variables) for tests.

Each function returns the model bytes; subgraph and op indices are fixed so tests can map
ops inside branches and loop bodies to other backends by `op_backend_map`.
"""
from __future__ import annotations

import numpy as np

from onert_py.model_builder import ModelBuilder

F32 = "float32"


def if_model(shape=(2, 3)) -> bytes:
    """y = IF(cond, a + b (then, subgraph 1), a * b - 1 (else, subgraph 2))."""
    b = ModelBuilder()
    then, other = b.add_subgraph("then"), b.add_subgraph("else")
    cond = b.add_input("cond", (), "bool")
    xa, xb = b.add_input("a", shape), b.add_input("b", shape)
    y = b.add_tensor("y", shape)
    b.add_op("IF", [cond, xa, xb], [y], then_subgraph_index=then, else_subgraph_index=other)
    b.add_output(y)
    ta, tb = b.add_input("a", shape, subgraph=then), b.add_input("b", shape, subgraph=then)
    ts = b.add_tensor("sum", shape, subgraph=then)
    b.add_op("ADD", [ta, tb], [ts], subgraph=then)
    b.add_output(ts, subgraph=then)
    ea, eb = b.add_input("a", shape, subgraph=other), b.add_input("b", shape, subgraph=other)
    ep, one = b.add_tensor("prod", shape, subgraph=other), b.add_const("one", np.float32(1),
                                                                        subgraph=other)
    er = b.add_tensor("res", shape, subgraph=other)
    b.add_op("MUL", [ea, eb], [ep], subgraph=other)
    b.add_op("SUB", [ep, one], [er], subgraph=other)
    b.add_output(er, subgraph=other)
    return b.build()


def _counter_cond(b: ModelBuilder, shapes: list) -> int:
    """cond(i, n, *rest) = i < n."""
    sg = b.add_subgraph("cond")
    ins = [b.add_input(f"v{k}", s, d, subgraph=sg) for k, (s, d) in enumerate(shapes)]
    c = b.add_tensor("c", (), "bool", subgraph=sg)
    b.add_op("LESS", ins[:2], [c], subgraph=sg)
    b.add_output(c, subgraph=sg)
    return sg


def while_model(width: int = 4) -> bytes:
    """(i, n, x) -> while i < n: i += 1; x = x * 1.5 + 1. Outputs x and i (trip count n)."""
    b = ModelBuilder()
    shapes = [((), "int32"), ((), "int32"), ((1, width), F32)]
    cond = _counter_cond(b, shapes)
    body = b.add_subgraph("body")
    n, x = b.add_input("n", (), "int32"), b.add_input("x", (1, width))
    zero = b.add_const("zero", np.int32(0))
    outs = [b.add_tensor("i_out", (), "int32"), b.add_tensor("n_out", (), "int32"),
            b.add_tensor("x_out", (1, width))]
    b.add_op("WHILE", [zero, n, x], outs, cond_subgraph_index=cond, body_subgraph_index=body)
    b.add_output(outs[2])
    b.add_output(outs[0])
    bi, bn, bx = [b.add_input(f"v{k}", s, d, subgraph=body) for k, (s, d) in enumerate(shapes)]
    one = b.add_const("one", np.int32(1), subgraph=body)
    k15, k1 = b.add_const("k", np.float32(1.5), subgraph=body), b.add_const("c", np.float32(1),
                                                                            subgraph=body)
    i2 = b.add_tensor("i2", (), "int32", subgraph=body)
    xm, x2 = b.add_tensor("xm", (1, width), subgraph=body), b.add_tensor("x2", (1, width),
                                                                         subgraph=body)
    b.add_op("ADD", [bi, one], [i2], subgraph=body)           # body op 0
    b.add_op("MUL", [bx, k15], [xm], subgraph=body)           # body op 1
    b.add_op("ADD", [xm, k1], [x2], subgraph=body)            # body op 2
    for t in (i2, bn, x2):
        b.add_output(t, subgraph=body)
    return b.build()


def while_until_model(limit: float = 100.0) -> bytes:
    """x -> while sum(x) < limit: x = x * 2 (data-dependent trip count)."""
    b = ModelBuilder()
    cond, body = b.add_subgraph("cond"), b.add_subgraph("body")
    x = b.add_input("x", (2, 2))
    y = b.add_tensor("y", (2, 2))
    b.add_op("WHILE", [x], [y], cond_subgraph_index=cond, body_subgraph_index=body)
    b.add_output(y)
    _doubling_loop(b, cond, body, limit)
    return b.build()


def _doubling_loop(b: ModelBuilder, cond: int, body: int, limit: float) -> None:
    """Fill `cond` with sum(x) < limit and `body` with x * 2, for x of shape (2, 2)."""
    cx = b.add_input("x", (2, 2), subgraph=cond)
    axes = b.add_const("axes", np.array([0, 1], np.int32), subgraph=cond)
    lim = b.add_const("limit", np.float32(limit), subgraph=cond)
    s, c = b.add_tensor("s", (), subgraph=cond), b.add_tensor("c", (), "bool", subgraph=cond)
    b.add_op("SUM", [cx, axes], [s], subgraph=cond, keep_dims=False)
    b.add_op("LESS", [s, lim], [c], subgraph=cond)
    b.add_output(c, subgraph=cond)
    bx = b.add_input("x", (2, 2), subgraph=body)
    two = b.add_const("two", np.float32(2), subgraph=body)
    by = b.add_tensor("y", (2, 2), subgraph=body)
    b.add_op("MUL", [bx, two], [by], subgraph=body)
    b.add_output(by, subgraph=body)


def growing_while_model(width: int = 2, signature: bool = True, scale: bool = False) -> bytes:
    """(i, n, x[r, width]) -> while i < n: i += 1; x = concat(x, x + i) on axis 0 (the rows
    double every iteration: loop-carried shapes change). Without `signature` the loop
    variables are declared with their first shapes and no -1 (only shape inference tells
    that they grow); `scale` multiplies the loop's result by 3 after the loop."""
    b = ModelBuilder()
    rows = -1 if signature else 1
    shapes = [((), "int32"), ((), "int32"), ((rows, width), F32)]
    cond = _counter_cond(b, shapes)
    body = b.add_subgraph("body")
    n, x = b.add_input("n", (), "int32"), b.add_input("x", (1, width))
    zero = b.add_const("zero", np.int32(0))
    outs = [b.add_tensor("i_out", (), "int32"), b.add_tensor("n_out", (), "int32"),
            b.add_tensor("x_out", (rows, width))]
    b.add_op("WHILE", [zero, n, x], outs, cond_subgraph_index=cond, body_subgraph_index=body)
    if scale:
        y = b.add_tensor("y", (rows, width))
        b.add_op("MUL", [outs[2], b.add_const("three", np.float32(3))], [y])
        b.add_output(y)
    else:
        b.add_output(outs[2])
    bi, bn, bx = [b.add_input(f"v{k}", s, d, subgraph=body) for k, (s, d) in enumerate(shapes)]
    one = b.add_const("one", np.int32(1), subgraph=body)
    i2 = b.add_tensor("i2", (), "int32", subgraph=body)
    fi = b.add_tensor("fi", (), F32, subgraph=body)
    row = b.add_tensor("row", (rows, width), subgraph=body)
    x2 = b.add_tensor("x2", (rows if signature else 2, width), subgraph=body)
    b.add_op("ADD", [bi, one], [i2], subgraph=body)
    b.add_op("CAST", [i2], [fi], subgraph=body)
    b.add_op("ADD", [bx, fi], [row], subgraph=body)
    b.add_op("CONCATENATION", [bx, row], [x2], subgraph=body, axis=0)
    for t in (i2, bn, x2):
        b.add_output(t, subgraph=body)
    return b.build()


def nested_model(grow: bool = False, switch: int = 2) -> bytes:
    """While (i < n) { if (i < 2) x = inner_while(x doubled until sum >= 50) else x = x + 1 }.
    With `grow`, the outer body then stacks x on itself (x = concat(x, x) on axis 0; every
    tensor still declared (2, 2)): the IF, its branches and the inner loop see x grow.
    `switch` replaces the 2 of `i < 2`.

    Subgraphs: 0 main, 1 outer cond, 2 outer body, 3 then (inner While), 4 else,
    5 inner cond, 6 inner body."""
    b = ModelBuilder()
    shapes = [((), "int32"), ((), "int32"), ((2, 2), F32)]
    cond = _counter_cond(b, shapes)                      # 1
    body = b.add_subgraph("outer_body")                  # 2
    then, other = b.add_subgraph("then"), b.add_subgraph("else")     # 3, 4
    icond, ibody = b.add_subgraph("inner_cond"), b.add_subgraph("inner_body")   # 5, 6
    n, x = b.add_input("n", (), "int32"), b.add_input("x", (2, 2))
    zero = b.add_const("zero", np.int32(0))
    outs = [b.add_tensor("i", (), "int32"), b.add_tensor("n2", (), "int32"),
            b.add_tensor("x2", (2, 2))]
    b.add_op("WHILE", [zero, n, x], outs, cond_subgraph_index=cond, body_subgraph_index=body)
    b.add_output(outs[2])
    # outer body: c = i < 2; x = IF(c, x); i += 1
    bi, bn, bx = [b.add_input(f"v{k}", s, d, subgraph=body) for k, (s, d) in enumerate(shapes)]
    two, one = b.add_const("two", np.int32(switch), subgraph=body), b.add_const("one", np.int32(1),
                                                                           subgraph=body)
    c = b.add_tensor("c", (), "bool", subgraph=body)
    xi, i2 = b.add_tensor("xi", (2, 2), subgraph=body), b.add_tensor("i2", (), "int32",
                                                                     subgraph=body)
    b.add_op("LESS", [bi, two], [c], subgraph=body)
    b.add_op("IF", [c, bx], [xi], subgraph=body, then_subgraph_index=then,
             else_subgraph_index=other)
    b.add_op("ADD", [bi, one], [i2], subgraph=body)
    if grow:
        xg = b.add_tensor("xg", (4, 2), subgraph=body)
        b.add_op("CONCATENATION", [xi, xi], [xg], subgraph=body, axis=0)
        xi = xg
    for t in (i2, bn, xi):
        b.add_output(t, subgraph=body)
    # then: inner While
    tx = b.add_input("x", (2, 2), subgraph=then)
    ty = b.add_tensor("y", (2, 2), subgraph=then)
    b.add_op("WHILE", [tx], [ty], subgraph=then, cond_subgraph_index=icond,
             body_subgraph_index=ibody)
    b.add_output(ty, subgraph=then)
    # else: x + 1
    ex = b.add_input("x", (2, 2), subgraph=other)
    k1 = b.add_const("k", np.float32(1), subgraph=other)
    ey = b.add_tensor("y", (2, 2), subgraph=other)
    b.add_op("ADD", [ex, k1], [ey], subgraph=other)
    b.add_output(ey, subgraph=other)
    _doubling_loop(b, icond, ibody, 50.0)     # inner cond: sum(x) < 50; inner body: x * 2
    return b.build()


def variable_model(shape=(1, 3)) -> bytes:
    """A running sum kept in a resource variable: CALL_ONCE(init: v = 0); v = v + x; y = v."""
    b = ModelBuilder()
    init = b.add_subgraph("init")
    x = b.add_input("x", shape)
    h = b.add_tensor("h", (), "resource")
    cur, y = b.add_tensor("cur", shape), b.add_tensor("y", shape)
    b.add_op("CALL_ONCE", [], [], init_subgraph_index=init)
    b.add_op("VAR_HANDLE", [], [h], container="", shared_name="acc")
    b.add_op("READ_VARIABLE", [h], [cur])
    b.add_op("ADD", [cur, x], [y])
    b.add_op("ASSIGN_VARIABLE", [h, y], [])
    b.add_output(y)
    ih = b.add_tensor("h", (), "resource", subgraph=init)
    z = b.add_const("zeros", np.zeros(shape, np.float32), subgraph=init)
    b.add_op("VAR_HANDLE", [], [ih], subgraph=init, container="", shared_name="acc")
    b.add_op("ASSIGN_VARIABLE", [ih, z], [], subgraph=init)
    return b.build()
