"""The code's layout rules (issue "the house in order"), checked on the source tree: no backend
imports another backend, the core imports no backend, and kernel classes follow one name
scheme (`<Op>Layer`, `Q<Op>Layer`, `Hybrid<Op>Layer`) in every backend."""
from __future__ import annotations

import ast
import os

import pytest

from paths import REPO_ROOT

PACKAGES = {"core": "onert_py.core", "builtin": "onert_py.builtin", "backends": "onert_py.backends",
            "onert_py": "onert_py", "config": "onert_py.config"}
BACKENDS = ("cpu", "acl_neon", "acl_cl")


def modules(folder: str):
    """(file path, dotted module name) of every .py file below the repository folder."""
    base = os.path.join(REPO_ROOT, folder)
    for dirpath, _, files in os.walk(base):
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, REPO_ROOT)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                yield path, ".".join([PACKAGES[rel[0]]] + rel[1:])


def imported(path: str, module: str) -> set[str]:
    """The absolute names of every module `path` imports (relative imports resolved)."""
    package = module if path.endswith("__init__.py") else module.rsplit(".", 1)[0]
    names = set()
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            names.add(target)
            names.update(f"{target}.{a.name}" for a in node.names)
    return names


def test_layout_finds_the_backends() -> None:
    found = {m for _, m in modules("backends")}
    for b in BACKENDS:
        assert f"onert_py.backends.{b}.ops" in found


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_backend_imports_another(backend: str) -> None:
    bad = []
    for path, module in modules(os.path.join("backends", backend)):
        for name in imported(path, module):
            other = [b for b in BACKENDS if b != backend
                     and (name == f"onert_py.backends.{b}" or
                          name.startswith(f"onert_py.backends.{b}."))]
            if other:
                bad.append(f"{os.path.relpath(path, REPO_ROOT)} imports {name}")
    assert not bad, "\n".join(bad)


def test_core_imports_no_backend() -> None:
    bad = [f"{os.path.relpath(path, REPO_ROOT)} imports {name}"
           for path, module in modules("core") for name in imported(path, module)
           if name.startswith("onert_py.backends") or name.startswith("onert_py.builtin")]
    assert not bad, "\n".join(bad)


def test_kernel_classes_follow_one_name_scheme() -> None:
    from onert_py.backends.acl_cl.ops import kernels as cl
    from onert_py.backends.acl_neon.ops import kernels as neon
    from onert_py.backends.cpu.ops import kernels as cpu
    bad = sorted({f"{r.cls.__module__}.{r.cls.__name__}" for reg in (cpu, neon, cl)
                  for r in reg.registrations() if not r.cls.__name__.endswith("Layer")})
    assert not bad, bad
