"""The base of the custom kernels onert_py bundles (backends/cpu/ops: mediapipe,
mediapipe_landmarks, detection_postprocess): their custom options are parsed by the op's
compile-time check, by its shape rule (core/compiler/shape_rules_custom.py asks the registration)
and by the kernel alike, so the plumbing lives here once."""
from __future__ import annotations

from ...custom_ops import register_bundled
from ..backend import Kernel


class BundledKernel(Kernel):
    """A bundled custom kernel. Subclasses set `code` (the custom code) and define
    `parse_options(bytes)` (a staticmethod; ValueError when the options are malformed; or
    override `options_of(op)` where they depend on more of the op, such as its version),
    `check_op(op, graph)` (inputs, outputs and types; `supports` adds the options' check) and
    `shape_rule(options, input shapes)` (the output shapes; `infer_shapes` is the shape rule
    that core/compiler/shape_rules_custom.py asks the registration for)."""

    code: str

    @staticmethod
    def parse_options(options: bytes):
        raise NotImplementedError

    @classmethod
    def options_of(cls, op):
        return cls.parse_options(op.params.get("custom_options", b""))

    @classmethod
    def check_op(cls, op, graph) -> tuple[bool, str]:
        return True, ""

    @classmethod
    def supports(cls, op, graph) -> tuple[bool, str]:
        ok, why = cls.check_op(op, graph)
        if not ok:
            return False, why
        try:
            cls.options_of(op)
        except ValueError as e:
            return False, str(e)
        return True, ""

    @classmethod
    def shape_rule(cls, options, shapes) -> list:
        raise NotImplementedError

    @classmethod
    def infer_shapes(cls, op, shapes, v):
        return cls.shape_rule(cls.options_of(op), shapes)


def bundle(cls: type[BundledKernel]) -> type[BundledKernel]:
    """Class decorator: register `cls` as the default kernel of its custom code."""
    register_bundled(cls.code, cls)
    return cls
