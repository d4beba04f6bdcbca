"""Build and run acl_neon's C++ kernel tests (no Python involved), natively or for aarch64.

    python tools/native_tests.py             # host compiler, every ISA level this CPU has
    python tools/native_tests.py --aarch64   # aarch64-linux-gnu-g++, run under qemu-aarch64

The kernel library is every `backends/acl_neon/csrc/*/*.cpp` except the pybind11 layer
(`bind*.cpp`); the tests are its `test_*.cpp` files plus csrc/tests/test_main.cpp. On x86-64
`*_avx2.cpp` / `*_avx512.cpp` get their ISA flags, as setup.py gives them; for aarch64 those
compile to nothing and the NEON code under `__aarch64__` is what runs. With `--install`, the
cross toolchain and qemu-user are installed with apt-get when missing (Debian packages
g++-aarch64-linux-gnu and qemu-user).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "backends" / "acl_neon" / "csrc"
sys.path.insert(0, str(ROOT))
from setup import ISA_FLAGS, isa_suffix  # noqa: E402

CROSS_CXX = "aarch64-linux-gnu-g++"
QEMU = "qemu-aarch64"
SYSROOT = "/usr/aarch64-linux-gnu"
APT_PACKAGES = ["g++-aarch64-linux-gnu", "qemu-user"]


def sources(only: set[str]) -> list[Path]:
    keep = {"common", "tests"} | only
    return [p for p in sorted(CSRC.glob("*/*.cpp")) if not p.name.startswith("bind")
            and (not only or p.parent.name in keep)]


def ensure_tools(aarch64: bool, install: bool) -> None:
    need = [CROSS_CXX, QEMU] if aarch64 else ["g++"]
    missing = [t for t in need if shutil.which(t) is None]
    if missing and install and aarch64:
        print(f"installing {' '.join(APT_PACKAGES)} (missing: {', '.join(missing)})", flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", *APT_PACKAGES], check=True, env=env)
        missing = [t for t in need if shutil.which(t) is None]
    if missing:
        sys.exit(f"missing tools: {', '.join(missing)}"
                 + (f" (apt-get install {' '.join(APT_PACKAGES)}, or run with --install)"
                    if aarch64 else ""))


def compile_one(cxx: str, src: Path, out_dir: Path, x86: bool, debug: bool) -> Path:
    obj = out_dir / (src.parent.name + "__" + src.stem + ".o")
    flags = ["-std=c++17", "-pthread", "-Wall", "-Wextra", "-Werror=return-type",
             "-I", str(CSRC / "common"), "-I", str(CSRC / "tests"), "-I", str(src.parent)]
    flags += ["-O1", "-g"] if debug else ["-O2"]       # asserts stay on: no -DNDEBUG
    suffix = isa_suffix(str(src))
    if suffix and x86:
        flags += ISA_FLAGS[suffix]
    cmd = [cxx, *flags, "-c", str(src), "-o", str(obj)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode:
        raise SystemExit(f"compiling {src.relative_to(ROOT)} failed:\n{result.stderr}")
    return obj


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aarch64", action="store_true", help="cross-compile, run under qemu")
    ap.add_argument("--install", action="store_true", help="apt-get the cross tools if missing")
    ap.add_argument("--debug", action="store_true", help="-O1 -g")
    ap.add_argument("--only", default="", help="comma-separated kernel groups (default: all)")
    args = ap.parse_args(argv)
    ensure_tools(args.aarch64, args.install)
    cxx = CROSS_CXX if args.aarch64 else os.environ.get("CXX", "g++")
    x86 = not args.aarch64 and os.uname().machine in ("x86_64", "amd64")
    out_dir = ROOT / "build" / ("native-tests-aarch64" if args.aarch64 else "native-tests")
    if args.only:
        out_dir = out_dir.with_name(out_dir.name + "-" + args.only.replace(",", "-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    srcs = sources({g for g in args.only.split(",") if g})
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        objs = list(pool.map(lambda s: compile_one(cxx, s, out_dir, x86, args.debug), srcs))
    exe = out_dir / "test_kernels"
    link = subprocess.run([cxx, "-pthread", *map(str, objs), "-o", str(exe)],
                          capture_output=True, text=True)
    if link.returncode:
        raise SystemExit(f"linking the kernel tests failed:\n{link.stderr}")
    run = [QEMU, "-L", SYSROOT, str(exe)] if args.aarch64 else [str(exe)]
    print(f"{len(srcs)} sources -> {exe.relative_to(ROOT)}; running"
          + (" under qemu-aarch64" if args.aarch64 else ""), flush=True)
    return subprocess.run(run).returncode


if __name__ == "__main__":
    sys.exit(main())
