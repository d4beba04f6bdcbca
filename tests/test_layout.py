"""The rules of the test tree itself. pytest imports each test module by its file name from its
own folder (the folders have no __init__.py), so names must be unique across folders; and no
module imports a test module: shared models live in tests/builders/, shared checks in the
harness modules (op_harness, quant_harness, rnn_harness, backends/<id>/*_harness). Tests read
which backend runs what from Session.placement(); the session's private objects only through
op_harness.session_internals."""
from __future__ import annotations

import ast
import os
from collections import defaultdict

from paths import TESTS_DIR

SKIP_DIRS = {"__pycache__", "fuzz_regressions"}
PER_FOLDER = {"__init__.py", "conftest.py"}      # pytest and Python tell these apart by folder


def python_files() -> list[str]:
    found = []
    for root, dirs, files in os.walk(TESTS_DIR):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".py")]
    return found


def imported_modules(path: str) -> list[tuple[int, str]]:
    """(line, module name) of every absolute import in the file at `path`."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
    return out


def test_module_names_are_unique():
    where = defaultdict(list)
    for path in python_files():
        name = os.path.basename(path)
        if name not in PER_FOLDER:
            where[name].append(os.path.relpath(path, TESTS_DIR))
    clashes = {name: paths for name, paths in where.items() if len(paths) > 1}
    assert not clashes, f"modules with the same name in several folders: {clashes}"


def test_no_module_imports_a_test_module():
    offenders = [f"{os.path.relpath(path, TESTS_DIR)}:{line} imports {module}"
                 for path in python_files() for line, module in imported_modules(path)
                 if module.split(".")[-1].startswith("test_")]
    assert not offenders, "\n".join(offenders)


SESSION_PRIVATES = {"_compiled", "_compiler", "_model", "_graph"}


def test_session_privates_are_read_in_one_place():
    offenders = []
    for path in python_files():
        if os.path.basename(path) == "op_harness.py":      # session_internals
            continue
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        offenders += [f"{os.path.relpath(path, TESTS_DIR)}:{node.lineno} reads .{node.attr}"
                      for node in ast.walk(tree)
                      if isinstance(node, ast.Attribute) and node.attr in SESSION_PRIVATES]
    assert not offenders, "\n".join(offenders)


def test_the_rules_see_the_whole_tree():
    """The checks above walk every folder of tests, builders and backends included."""
    rel = {os.path.relpath(p, TESTS_DIR) for p in python_files()}
    assert {"conftest.py", os.path.join("builders", "qconv.py"),
            os.path.join("backends", "acl_neon", "neon_harness.py"),
            os.path.join("ops", "test_q_conv.py")} <= rel
    assert ("builders.qconv" in {m for _, m in imported_modules(
        os.path.join(TESTS_DIR, "ops", "test_q_conv.py"))})
