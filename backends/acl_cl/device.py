"""Finding the OpenCL device: by config (`opencl: {platform, device}`) or by default, a GPU
before an accelerator before a CPU device; among equals the newest platform version, then
names, so that several PoCL platforms always give the same choice. A device is only taken if
it can build a trivial kernel (an old PoCL may not know this CPU)."""
from __future__ import annotations

import re
from typing import Any

INSTALL = 'pip install "onert_py[cl]"'
# When a platform is there but cannot build for this CPU (pip's PoCL 3.0 / LLVM 14 does not
# know e.g. AMD Zen 5: "unknown target CPU"), a newer driver is the fix, not pyopencl.
DRIVER_FIX = ("install a newer OpenCL driver: on Debian/Ubuntu `apt-get install "
              "pocl-opencl-icd` (PoCL built on a newer LLVM), or the GPU vendor's OpenCL ICD")
PROBE_SOURCE = "__kernel void probe(__global float *x) { x[get_global_id(0)] += 1.0f; }\n"
_probed: dict[tuple, str] = {}     # (platform, version, device) -> "" or why it cannot build


def import_cl() -> Any:
    """pyopencl, or ImportError with the install command."""
    try:
        import pyopencl
    except ImportError as e:
        raise ImportError(f"pyopencl is not installed ({e}); install it with {INSTALL}") from None
    return pyopencl


def _version(text: str) -> tuple[int, ...]:
    m = re.search(r"(\d+)\.(\d+)", text.split("PoCL")[-1] if "PoCL" in text else text)
    return tuple(int(g) for g in m.groups()) if m else (0,)


def _type_rank(cl, dev) -> int:
    t = dev.type
    if t & cl.device_type.GPU:
        return 0
    if t & cl.device_type.ACCELERATOR:
        return 1
    return 2


def describe(dev) -> str:
    return f"'{dev.name.strip()}' on '{dev.platform.name.strip()}' ({dev.platform.version.strip()})"


def all_devices(cl) -> list:
    """Every device of every platform, in the default order of preference."""
    try:
        platforms = cl.get_platforms()
    except Exception as e:   # no ICD / no platform: pyopencl raises LogicError or RuntimeError
        raise LookupError(f"no OpenCL platform found ({e}); for PoCL on the CPU: {INSTALL}") from None
    devs = []
    for p in platforms:
        try:
            devs += p.get_devices()
        except Exception:
            continue
    devs.sort(key=lambda d: (_type_rank(cl, d), tuple(-v for v in _version(d.platform.version)),
                             d.platform.name, d.name))
    if not devs:
        raise LookupError(f"OpenCL platforms found but no device; for PoCL on the CPU: {INSTALL}")
    return devs


def probe(cl, dev) -> str:
    """'' if `dev` builds a trivial kernel, else the reason (with the build log)."""
    key = (dev.platform.name, dev.platform.version, dev.name)
    if key not in _probed:
        try:
            ctx = cl.Context([dev])
            cl.Program(ctx, PROBE_SOURCE).build()
            _probed[key] = ""
        except Exception as e:
            log = str(e).strip().splitlines()
            detail = next((ln for ln in log if "error" in ln.lower() and "clBuild" not in ln),
                          log[-1] if log else type(e).__name__)
            _probed[key] = f"device {describe(dev)} cannot build OpenCL kernels: {detail.strip()}"
    return _probed[key]


def _match(value: Any, index: int, *names: str) -> bool:
    if isinstance(value, int):
        return value == index
    v = str(value).lower()
    return v.isdigit() and int(v) == index or any(v in n.lower() for n in names)


def select_device(cl, options: dict | None = None):
    """The device for `options` (the config's `opencl` section); LookupError saying why not."""
    options = options or {}
    devs = all_devices(cl)
    want_p, want_d = options.get("platform"), options.get("device")
    if want_p is not None:
        plats = sorted({d.platform.name for d in devs})
        ordered = cl.get_platforms()
        keep = [d for d in devs if any(_match(want_p, i, p.name, p.vendor) and p == d.platform
                                       for i, p in enumerate(ordered))]
        if not keep:
            raise LookupError(f"opencl.platform {want_p!r} matches no OpenCL platform; platforms: "
                              f"{', '.join(f'{i}: {p.name}' for i, p in enumerate(ordered)) or plats}")
        devs = keep
    if want_d is not None:
        kinds = {"gpu": 0, "accelerator": 1, "cpu": 2}
        if isinstance(want_d, str) and want_d.lower() in kinds:
            keep = [d for d in devs if _type_rank(cl, d) == kinds[want_d.lower()]]
        else:
            keep = [d for i, d in enumerate(devs) if _match(want_d, i, d.name)]
        if not keep:
            raise LookupError(f"opencl.device {want_d!r} matches no OpenCL device; devices: "
                              + ", ".join(f"{i}: {describe(d)}" for i, d in enumerate(devs)))
        devs = keep
    reasons = []
    for d in devs:
        why = probe(cl, d)
        if not why:
            return d
        reasons.append(why)
    raise LookupError("; ".join(reasons) + f" (no OpenCL device here can build kernels; "
                      f"{DRIVER_FIX}; `python tools/opencl_check.py --ensure` does this)")
