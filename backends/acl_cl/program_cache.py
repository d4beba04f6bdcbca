"""Programs built once per device and source: in memory for the life of the runtime, and as
binaries on disk under `cache_dir` (keyed by device and source hash) so a new process or
session starts fast. A cache file that fails its checksum or does not load is rebuilt."""
from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from importlib import resources

from ...errors import CompileError
from .device import DRIVER_FIX

MAGIC = b"ONERTCL1"
stats: Counter = Counter()     # "source", "disk", "memory", "corrupt" builds; read by tests


def default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "onert_py", "cl")


INCLUDE = re.compile(r'^#include "([\w.]+)"[ \t]*$', re.M)


def read_source(name: str, seen: frozenset = frozenset()) -> str:
    """A `.cl` file shipped as package data, its `#include "x.cl"` lines replaced by those
    files (so the program's hash covers them, and no include path reaches the compiler)."""
    if name in seen:
        raise CompileError(f"acl_cl: {name} includes itself")
    text = resources.files("onert_py.backends.acl_cl").joinpath("cl", name).read_text()
    return INCLUDE.sub(lambda m: read_source(m.group(1), seen | {name}), text)


def device_key(dev) -> str:
    return "|".join(str(x).strip() for x in (dev.platform.name, dev.platform.version, dev.name,
                                             dev.driver_version, dev.version))


class ProgramCache:
    def __init__(self, cl, ctx, dev, cache_dir: str | None) -> None:
        self.cl, self.ctx, self.dev = cl, ctx, dev
        self.cache_dir = cache_dir or default_cache_dir()
        self.programs: dict[tuple[str, str], object] = {}     # (name, options) -> program
        self.dev_key = device_key(dev)

    def path(self, key: str) -> str:
        return os.path.join(self.cache_dir, key + ".bin")

    def get(self, name: str, options: str = ""):
        """The built program of package source `name` (read and hashed once per runtime)."""
        prg = self.programs.get((name, options))
        if prg is not None:
            stats["memory"] += 1
            return prg
        source = read_source(name)
        key = hashlib.sha256(f"{self.dev_key}\n{options}\n{source}".encode()).hexdigest()[:32]
        prg = self._load(key, options)
        if prg is None:
            prg = self._build(name, source, options)
            self._store(key, prg)
        self.programs[(name, options)] = prg
        return prg

    def _load(self, key: str, options: str):
        try:
            with open(self.path(key), "rb") as f:
                blob = f.read()
        except OSError:
            return None
        head, digest, payload = blob[:8], blob[8:40], blob[40:]
        if head != MAGIC or hashlib.sha256(payload).digest() != digest or not payload:
            stats["corrupt"] += 1
            return None
        try:
            prg = self.cl.Program(self.ctx, [self.dev], [payload]).build(options=options)
        except Exception:
            stats["corrupt"] += 1
            return None
        stats["disk"] += 1
        return prg

    def _build(self, name: str, source: str, options: str):
        try:
            prg = self.cl.Program(self.ctx, source).build(options=options)
        except Exception as e:
            raise CompileError(f"acl_cl: building {name} for device '{self.dev.name.strip()}' "
                               f"failed: {e}") from None
        if not prg.get_info(self.cl.program_info.KERNEL_NAMES):
            raise CompileError(f"acl_cl: building {name} ({options or 'no options'}) for device "
                               f"'{self.dev.name.strip()}' gave a program without kernels (a "
                               f"driver bug; pip's PoCL 3.0 does this on some CPUs): "
                               f"{DRIVER_FIX}")
        stats["source"] += 1
        return prg

    def _store(self, key: str, prg) -> None:
        try:
            payload = prg.get_info(self.cl.program_info.BINARIES)[0]
            if not payload:
                return
            os.makedirs(self.cache_dir, exist_ok=True)
            tmp = self.path(key) + f".{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                f.write(MAGIC + hashlib.sha256(payload).digest() + bytes(payload))
            os.replace(tmp, self.path(key))
        except OSError:
            pass     # a read-only cache directory only costs the next start its build time
