"""The acl_neon backend's kernels. Every module of this package registers its kernels in
`kernels` when imported (all are imported here); its keys are the backend's supported-op list."""
import importlib
import pkgutil

from .base import kernels

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name != "base":
        importlib.import_module(f"{__name__}.{_info.name}")

__all__ = ["kernels"]
