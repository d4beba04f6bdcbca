"""The acl_neon kernel modules, one per group of kernels (built from csrc/<group>/ by setup.py).

`module(group)` imports `_<group>` once; a group that did not build (no compiler at install
time, a broken toolchain) is recorded with the reason, and the kernels needing it refuse their
ops with that reason. `_core` must load for the backend to be available at all.
"""
from __future__ import annotations

import importlib
import os
import threading
from types import ModuleType

BUILD_HINT = ("the acl_neon native extension is built when onert_py is installed with a C++17 "
              "compiler (e.g. `apt install g++` then `pip install -e .`, or "
              "`make native` in a checkout)")

_lock = threading.Lock()
_modules: dict[str, ModuleType] = {}
_failures: dict[str, str] = {}
_isa_cap: list[str | None] = [os.environ.get("ONERT_NEON_ISA")]


class NativeUnavailable(Exception):
    """A kernel group's native module could not be loaded; the message says why."""


def module(group: str) -> ModuleType:
    """The native module of `group`; NativeUnavailable with the reason if it is missing."""
    mod = _modules.get(group)
    if mod is not None:
        return mod
    with _lock:
        if group in _modules:
            return _modules[group]
        if group in _failures:
            raise NativeUnavailable(_failures[group])
        try:
            mod = importlib.import_module(f"{__package__}._{group}")
        except ImportError as e:
            _failures[group] = f"native module _{group} is not built ({e}); {BUILD_HINT}"
            raise NativeUnavailable(_failures[group]) from None
        if _isa_cap[0] and not mod.set_isa(_isa_cap[0]):
            mod.set_isa(mod.detected_isa())
        _modules[group] = mod
        return mod


def available(group: str) -> tuple[bool, str]:
    try:
        module(group)
    except NativeUnavailable as e:
        return False, str(e)
    return True, ""


def detected_isa() -> str:
    return module("core").detected_isa()


def active_isa() -> str:
    return module("core").active_isa()


def available_isas() -> list[str]:
    return list(module("core").available_isas())


def set_isa(name: str) -> None:
    """Cap every kernel module's instruction set at `name` (tests run each level)."""
    if name not in available_isas():
        raise ValueError(f"instruction set {name!r} is not usable on this CPU; usable: "
                         f"{', '.join(available_isas())}")
    with _lock:
        _isa_cap[0] = name
        for mod in _modules.values():
            mod.set_isa(name)


def hardware_threads() -> int:
    return max(1, int(module("core").hardware_threads()))
