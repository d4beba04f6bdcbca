"""Build of acl_neon's native kernels: one pybind11 extension per kernel group.

Each directory `backends/acl_neon/csrc/<group>/` (other than `common` and `tests`) becomes the
module `onert_py.backends.acl_neon._<group>`, compiled from its `*.cpp` files. Nothing is built
for the build machine's CPU (no -march=native): the files are compiled for the baseline ISA,
except `*_avx2.cpp` (AVX2 + FMA) and `*_avx512.cpp` (AVX-512 F/BW/DQ/VL + VNNI), which the
kernels call only after a run-time CPU check (csrc/common/isa.h). On aarch64, NEON is part
of the baseline and `*_neon.cpp` compile as they are; the x86 files compile to nothing there.

Every extension is optional: without a C++ compiler (or pybind11) the install still succeeds
without it, and the backend reports itself unavailable with the reason.

ONERT_NATIVE_ONLY=gemm,pool builds only those groups (handy with `build_ext --inplace`);
ONERT_NATIVE_DEBUG=1 keeps the C++ asserts (no -DNDEBUG, -O1 -g).
"""
from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError
from setuptools.modified import newer_group

HERE = Path(__file__).resolve().parent
CSRC = HERE / "backends" / "acl_neon" / "csrc"
RUNTIME = HERE / "core" / "exec" / "csrc"      # the native segment runner (core), its headers
X86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "x86")
ISA_FLAGS = {
    "_avx2": ["-mavx2", "-mfma", "-mf16c"],
    "_avx512": ["-mavx2", "-mfma", "-mf16c", "-mavx512f", "-mavx512bw", "-mavx512dq",
                "-mavx512vl", "-mavx512vnni"],
}
DEBUG = os.environ.get("ONERT_NATIVE_DEBUG") == "1"
BASE_FLAGS = ["-std=c++17", "-pthread", "-fvisibility=hidden"] + (
    ["-O1", "-g", "-UNDEBUG"] if DEBUG else ["-O3", "-DNDEBUG"])


def isa_suffix(path: str) -> str | None:
    stem = Path(path).stem
    return next((s for s in ISA_FLAGS if stem.endswith(s)), None)


class BuildNative(build_ext):
    """build_ext that compiles each ISA-specific source with its own flags."""

    def build_extension(self, ext: Extension) -> None:
        if not (self.force or newer_group(ext.sources + list(ext.depends),
                                          self.get_ext_fullpath(ext.name), "newer")):
            return                   # up to date with every source (ISA files included)
        try:
            import pybind11
        except ImportError as e:     # optional extensions: a CompileError skips them
            raise CompileError(f"pybind11 is not installed: {e}") from None
        ext.include_dirs += [pybind11.get_include(), str(CSRC / "common"), str(RUNTIME)]
        plain = [s for s in ext.sources if isa_suffix(s) is None]
        special = [s for s in ext.sources if isa_suffix(s) is not None]
        objects = []
        for src in special:
            flags = ISA_FLAGS[isa_suffix(src)] if X86 else []
            objects += self.compiler.compile(
                [src], output_dir=self.build_temp, include_dirs=ext.include_dirs,
                extra_postargs=BASE_FLAGS + flags, debug=self.debug)
        ext.sources = plain
        ext.extra_objects = list(ext.extra_objects or []) + objects
        force, self.force = self.force, True    # link even when only an ISA file changed
        try:
            super().build_extension(ext)
        finally:
            self.force = force


def runtime_headers() -> list[str]:
    return sorted(str(p.relative_to(HERE)) for p in RUNTIME.glob("*.h"))


def native_extensions() -> list[Extension]:
    """The core's segment runner (`onert_py.core.exec._native`), then one module per acl_neon
    kernel group."""
    only = {g for g in os.environ.get("ONERT_NATIVE_ONLY", "").split(",") if g}
    exts = []
    if RUNTIME.is_dir() and (not only or "native" in only):
        exts.append(Extension(
            "onert_py.core.exec._native", [str((RUNTIME / "native.cpp").relative_to(HERE))],
            depends=runtime_headers(), language="c++", optional=True,
            extra_compile_args=BASE_FLAGS, extra_link_args=["-pthread"]))
    if not CSRC.is_dir():
        return exts
    common = sorted(str(p.relative_to(HERE)) for p in (CSRC / "common").glob("*.cpp"))
    for group in sorted(p for p in CSRC.iterdir() if p.is_dir()):
        if group.name in ("common", "tests") or (only and group.name not in only):
            continue
        sources = sorted(str(p.relative_to(HERE)) for p in group.glob("*.cpp")
                         if not p.name.startswith("test_"))
        if not sources:
            continue
        headers = sorted(str(p.relative_to(HERE)) for d in (group, CSRC / "common")
                         for pat in ("*.h", "*.inc") for p in d.glob(pat)) + runtime_headers()
        exts.append(Extension(
            f"onert_py.backends.acl_neon._{group.name}", sources + common, depends=headers,
            language="c++", optional=True,
            extra_compile_args=BASE_FLAGS, extra_link_args=["-pthread"]))
    return exts


if __name__ == "__main__":      # (tools/native_tests.py imports the flags above)
    # the native kernels are written for GCC/Clang
    EXTS = [] if sys.platform.startswith("win") else native_extensions()
    setup(ext_modules=EXTS, cmdclass={"build_ext": BuildNative})
