"""Which OpenCL platforms and devices this machine has, which one the acl_cl backend picks,
and whether it can build a kernel.

    python tools/opencl_check.py            # report; exit 0 if a device builds, else 1
    python tools/opencl_check.py --ensure   # same, but first try to fix it: on Debian/Ubuntu,
                                            # as root, `apt-get install -y pocl-opencl-icd`

pip's pocl-binary-distribution 3.0 (LLVM 14) cannot build kernels on CPUs its LLVM does not
know (e.g. AMD Zen 5: "unknown target CPU"), and on some it builds the int8 programs without
kernels; Debian's pocl-opencl-icd (LLVM 15+) can. The ICD loader then lists both platforms and
acl_cl takes the newest that builds.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys


def check(out=sys.stdout) -> tuple[bool, str]:
    """Print the platforms/devices and acl_cl's choice; (a device builds, reason if not)."""
    try:
        from onert_py.backends.acl_cl import device as d
    except ImportError as e:
        return False, f"onert_py is not importable ({e})"
    d._probed.clear()
    try:
        cl = d.import_cl()
    except ImportError as e:
        return False, str(e)
    try:
        devs = d.all_devices(cl)
    except LookupError as e:
        return False, str(e)
    print("OpenCL devices, in acl_cl's order of preference:", file=out)
    for i, dev in enumerate(devs):
        why = d.probe(cl, dev)
        print(f"  {i}: {d.describe(dev)}: {'builds kernels' if not why else why}", file=out)
    try:
        chosen = d.select_device(cl)
    except LookupError as e:
        return False, str(e)
    print(f"acl_cl picks {d.describe(chosen)}", file=out)
    why = builds_programs()
    if why:
        return False, why
    print("  it builds the backend's int8 programs", file=out)
    return True, ""


def builds_programs() -> str:
    """'' if acl_cl's chosen device builds its int8 kernels (quant.cl for int8 and uint8) into
    programs that hold them, else why not. pip's PoCL 3.0 (LLVM 14) builds the trivial probe on
    some CPUs (an AMD EPYC here) but returns an int8 quant.cl program without any kernel, and
    aborts the process when it releases that context: so the build runs in a child process.
    It runs twice: on an AMD EPYC (Zen 4) that PoCL builds the programs from source correctly,
    and gives the empty program only when it takes the build from its own kernel cache
    (~/.cache/pocl), i.e. in every later process."""
    for _ in range(2):
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--build-int8"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            lines = [ln for ln in r.stdout.strip().splitlines() if ln]
            return lines[-1] if lines else f"building quant.cl crashed (exit code {r.returncode})"
    return ""


def build_int8() -> int:
    """The child of builds_programs: 0 if the chosen device's quant.cl programs hold kernels."""
    import warnings

    from onert_py.backends.acl_cl import device as d
    from onert_py.backends.acl_cl.program_cache import read_source
    cl = d.import_cl()
    dev = d.select_device(cl)
    ctx = cl.Context([dev])
    source = read_source("quant.cl")
    for qt in ("char", "uchar"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")      # compiler chatter (ABI notes)
                prg = cl.Program(ctx, source).build(options=f"-DQT={qt}")
        except Exception as e:
            print(f"{d.describe(dev)} cannot build quant.cl with -DQT={qt}: {e}", flush=True)
            return 1
        if not prg.get_info(cl.program_info.KERNEL_NAMES):
            print(f"{d.describe(dev)} builds quant.cl with -DQT={qt} into a program without "
                  f"kernels", flush=True)
            os._exit(1)         # before the driver aborts on releasing the context
    return 0


def can_install() -> str:
    """'' when `apt-get install pocl-opencl-icd` may be tried here, else why not."""
    if not os.path.exists("/etc/debian_version"):
        return "not a Debian/Ubuntu system"
    if shutil.which("apt-get") is None:
        return "apt-get is not available"
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        return "not running as root (run: sudo apt-get install pocl-opencl-icd)"
    return ""


def install() -> bool:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update", "-q"],
                ["apt-get", "install", "-y", "-q", "--no-install-recommends", "pocl-opencl-icd"]):
        print("running:", " ".join(cmd), flush=True)
        if subprocess.run(cmd, env=env).returncode != 0:
            return False
    return True


def recheck() -> tuple[bool, str]:
    """Check again in a fresh process (the ICD loader reads its vendors once per process)."""
    r = subprocess.run([sys.executable, os.path.abspath(__file__)], capture_output=True,
                       text=True)
    sys.stdout.write(r.stdout)
    return r.returncode == 0, (r.stdout.strip().splitlines() or [""])[-1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ensure", action="store_true",
                    help="if no device builds, install pocl-opencl-icd (Debian, root) and "
                         "check again")
    ap.add_argument("--build-int8", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.build_int8:
        return build_int8()
    os.environ.pop("POCL_LLVM_CPU_NAME", None)
    ok, why = check()
    if ok:
        return 0
    print(f"acl_cl cannot use OpenCL here: {why}", flush=True)
    if not args.ensure:
        return 1
    blocked = can_install()
    if blocked:
        print(f"cannot install pocl-opencl-icd automatically: {blocked}")
        return 1
    if not install():
        print("installing pocl-opencl-icd failed")
        return 1
    ok, why = recheck()
    if not ok:
        print(f"still no OpenCL device that builds kernels after installing pocl-opencl-icd: "
              f"{why}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
