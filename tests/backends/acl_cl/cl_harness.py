"""Helpers shared by the acl_cl quantized kernel tests (test_acl_cl_quant*.py beside it; no tests
here): where a model's ops are placed with acl_cl first, and the bit-exact comparison with the
interpreter of a model acl_cl must run whole."""
from __future__ import annotations

import onert_py
from quant_harness import check_qop


def placed(model: bytes, backends: str = "acl_cl;cpu") -> set:
    """The backends of the model's own ops (not the builtin I/O permutes)."""
    with onert_py.Session(model, backends=backends) as s:
        return s.placement().used_backends - {"builtin"}


def check_on_cl(model: bytes, xs) -> None:
    """Every op of `model` is placed on acl_cl, and its outputs equal the interpreter's."""
    assert placed(model) == {"acl_cl"}
    check_qop(model, xs, backends="acl_cl")
