"""BackendManager: finds and loads backends by id, as onert's BackendManager does.

A backend is a module `libbackend_<id>` exposing `onert_backend_create()` and
`onert_backend_destroy(backend)`. Search order: bundled (`onert_py.backends.<id>`), the
entry-point group `onert_py.backends`, then the directories of ONERT_BACKEND_PATH and of the
config's `backend_paths`, holding `libbackend_<id>.py` or a compiled `libbackend_<id>*.so`.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from types import ModuleType

from ...errors import BackendNotAvailableError
from ..backend import Backend

BUNDLED = ("cpu", "acl_neon", "acl_cl")
ENTRY_POINT_GROUP = "onert_py.backends"


class BackendManager:
    """Process-wide registry of loaded backends, with the reason each failed one failed."""

    def __init__(self) -> None:
        # re-entrant: loading a backend imports modules, and the garbage collection that an
        # import may trigger can close a forgotten Session (Session.__del__), which releases
        # its backends on this same thread while the lock is held
        self._lock = threading.RLock()
        self._loaded: dict[str, tuple[Backend, ModuleType]] = {}
        self._users: dict[str, int] = {}
        self.failures: dict[str, str] = {}

    def load(self, backend_id: str, extra_paths: list[str] | tuple[str, ...] = ()) -> Backend:
        """The backend `backend_id`, loading it on first use; BackendNotAvailableError if not."""
        with self._lock:
            if backend_id in self._loaded:
                self._users[backend_id] += 1
                return self._loaded[backend_id][0]
            try:
                module = self._find(backend_id, extra_paths)
                create = getattr(module, "onert_backend_create", None)
                if create is None:
                    raise BackendNotAvailableError(
                        f"module {module.__name__} has no onert_backend_create()")
                backend = create()
                try:
                    ok = backend.config.initialize()
                except BaseException:
                    _destroy_quietly(module, backend)
                    raise
                if not ok:
                    _destroy_quietly(module, backend)    # created, so destroyed: no leaks
                    raise BackendNotAvailableError(backend.config.unavailable_reason or
                                                   "initialize() returned False")
            except BackendNotAvailableError as e:
                self.failures[backend_id] = str(e)
                raise BackendNotAvailableError(str(e), {backend_id: str(e)}) from None
            except Exception as e:  # a plug-in may fail in any way; record why and go on
                reason = f"{type(e).__name__}: {e}"
                self.failures[backend_id] = reason
                raise BackendNotAvailableError(reason, {backend_id: reason}) from e
            self.failures.pop(backend_id, None)
            self._loaded[backend_id] = (backend, module)
            self._users[backend_id] = 1
            return backend

    def release(self, backend_id: str) -> None:
        """One user fewer; the last one out calls the module's onert_backend_destroy()."""
        with self._lock:
            if backend_id not in self._users:
                return
            self._users[backend_id] -= 1
            if self._users[backend_id] > 0:
                return
            backend, module = self._loaded.pop(backend_id)
            del self._users[backend_id]
            destroy = getattr(module, "onert_backend_destroy", None)
            if destroy is not None:
                destroy(backend)

    def get(self, backend_id: str) -> Backend | None:
        """The loaded backend `backend_id` (None if it is not loaded)."""
        entry = self._loaded.get(backend_id)
        return entry[0] if entry else None

    def module_of(self, backend_id: str) -> ModuleType | None:
        """The module a loaded backend came from (None if it is not loaded)."""
        entry = self._loaded.get(backend_id)
        return entry[1] if entry else None

    def users(self, backend_id: str) -> int:
        return self._users.get(backend_id, 0)

    def _find(self, backend_id: str, extra_paths) -> ModuleType:
        if backend_id == "builtin":
            return importlib.import_module("onert_py.builtin.libbackend_builtin")
        if backend_id in BUNDLED:
            return importlib.import_module(f"onert_py.backends.{backend_id}.libbackend_{backend_id}")
        for ep in _entry_points():
            if ep.name == backend_id:
                return ep.load()
        import glob
        dirs = [d for d in os.environ.get("ONERT_BACKEND_PATH", "").split(os.pathsep) if d]
        dirs += list(extra_paths)
        for d in dirs:
            for path in [os.path.join(d, f"libbackend_{backend_id}.py")] + sorted(
                    glob.glob(os.path.join(d, f"libbackend_{backend_id}*.so"))):
                if os.path.isfile(path):
                    return _import_file(f"libbackend_{backend_id}", path)
        where = ", ".join(dirs) if dirs else "none set (ONERT_BACKEND_PATH, config backend_paths)"
        raise BackendNotAvailableError(
            f"no backend named {backend_id!r}: not bundled ({', '.join(BUNDLED)}), not in entry "
            f"points '{ENTRY_POINT_GROUP}', no libbackend_{backend_id}.py or .so in: {where}")

    def available(self) -> list[str]:
        """Backend ids that can be found (not necessarily initialized)."""
        names = set(BUNDLED) | {ep.name for ep in _entry_points()}
        return sorted(names)


def _entry_points() -> list:
    """The installed plug-ins' entry points in ENTRY_POINT_GROUP. importlib.metadata is
    imported here, not at module level: it costs ~20 ms, and bundled backends never need it."""
    from importlib.metadata import entry_points
    return list(entry_points(group=ENTRY_POINT_GROUP))


def _destroy_quietly(module: ModuleType, backend: Backend) -> None:
    """onert_backend_destroy for a backend that failed to initialize; its own failure is
    secondary to the reason being recorded, so it is not raised."""
    destroy = getattr(module, "onert_backend_destroy", None)
    if destroy is not None:
        try:
            destroy(backend)
        except Exception:
            pass


def _import_file(name: str, path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BackendNotAvailableError(f"{path}: not an importable module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


manager = BackendManager()
