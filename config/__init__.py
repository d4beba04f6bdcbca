"""Configuration: onert's keys in snake case, from arguments, YAML, environment, nnpackage.

Precedence, strongest first: arguments to Session, the YAML file (or dict), environment
variables, the nnpackage's config, the packaged defaults (Config's field defaults, which
default.yaml lists key by key; tests/test_config.py keeps the two equal). `op_backend`,
`op_backend_map` and backend sections (`opencl:`) are merged key by key; other keys are replaced.
`schema.json` (next to this file) describes the YAML file for editors and is kept in step with
VALID_KEYS by tests/test_config.py.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from ..core.exec import EXECUTORS as _EXECUTOR_CLASSES
from ..errors import ConfigError

EXECUTORS = tuple(_EXECUTOR_CLASSES)          # Linear, Dataflow, Parallel
# what `backends: null` (not set by any source; the packaged default) means: the compiler
# loads these, the fastest first; one that cannot load here is left out with its reason
# (acl_neon where its native modules are not built: then cpu alone). default.yaml,
# schema.json and the README say so.
DEFAULT_BACKENDS: tuple[str, ...] = ("acl_neon", "cpu")
PLANNERS = ("WIC", "FirstFit", "Bump")
SECTIONS = {"opencl": ("platform", "device", "cache_dir")}   # backend sections and their keys
TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")
_WS = "<workspace_dir>"           # stands for workspace_dir until every source is merged

# onert's KEY names (environment, nnpackage config) -> snake-case keys; plus OP_BACKEND_<OpName>
ENV_KEYS = {
    "BACKENDS": "backends", "OP_BACKEND_ALLOPS": "op_backend_allops",
    "OP_BACKEND_MAP": "op_backend_map", "EXECUTOR": "executor",
    "CPU_MEMORY_PLANNER": "memory_planner", "NUM_THREADS": "num_threads",
    "TRACING_MODE": "tracing", "TRACING_PATH": "tracing", "WORKSPACE_DIR": "workspace_dir",
    "GRAPH_DOT_DUMP": "graph_dot_dump", "USE_MMAPED_DATA": "use_mmaped_data",
    "NATIVE_SEGMENTS": "native_segments", "FUSE": "fuse",
}
MERGED = ("op_backend", "op_backend_map") + tuple(SECTIONS)   # merged key by key across sources


@dataclass
class Config:
    backends: list[str] | None = None
    op_backend_allops: str | None = None
    op_backend: dict[str, str] = field(default_factory=dict)
    op_backend_map: dict[tuple[int, int], str] = field(default_factory=dict)
    executor: str = "Linear"
    memory_planner: str = "WIC"
    num_threads: int | None = None
    tracing: str | None = None
    workspace_dir: str = "."
    graph_dot_dump: str | None = None
    use_mmaped_data: bool = True
    backend_paths: list[str] = field(default_factory=list)
    max_tensor_bytes: int = 1 << 34
    max_while_iterations: int = 1_000_000
    native_segments: bool = True
    fuse: bool = True                  # backends' cross-op fusions (core/compiler/fusion.py)
    sections: dict[str, Any] = field(default_factory=dict)   # backends' own sections


VALID_KEYS = tuple(f.name for f in fields(Config) if f.name != "sections") + tuple(SECTIONS)


def defaults() -> dict[str, Any]:
    """The packaged defaults, every key but the backend sections: Config's field defaults.
    default.yaml shows the same values to users (a test keeps them equal); they are not read
    from it, so that a Session in a fresh process never imports yaml (~10 ms)."""
    c = Config()
    return {f.name: getattr(c, f.name) for f in fields(Config) if f.name != "sections"}


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a config file."""
    import json
    from importlib import resources
    return json.loads(resources.files("onert_py.config").joinpath("schema.json").read_text("utf-8"))


def _suggest(word: str, valid) -> str:
    import difflib
    near = difflib.get_close_matches(word, list(valid), n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def _bad(where: str, key: str, expected: str, value: Any) -> ConfigError:
    """The one wrong-type message: source, key, what was expected, what was given."""
    return ConfigError(f"{where}: {key} has an invalid value {value!r}: expected {expected}, "
                       f"not {type(value).__name__}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_backends(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        items = [v.strip() for v in value.replace(",", ";").split(";")]
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = [v.strip() for v in value]
    else:
        raise _bad(where, "backends", "a list of backend ids or a ';'-separated string", value)
    items = [v for v in items if v]
    if not items:
        raise ConfigError(f"{where}: backends is empty; name at least one, e.g. 'cpu'")
    return items


def _op_key(k: Any, where: str) -> tuple[int, int]:
    """3, "3", "1:3" or (1, 3) -> (subgraph, op)."""
    try:
        if isinstance(k, tuple):
            sg, op = k
        elif isinstance(k, str) and ":" in k:
            sg, op = k.split(":", 1)
        else:
            sg, op = 0, k
        if isinstance(sg, bool) or isinstance(op, bool) or isinstance(op, float):
            raise TypeError
        return int(sg), int(op)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: op_backend_map key {k!r} is not an op index "
                          f"(N or SUBGRAPH:N)") from None


def _op_entry(item: Any, where: str) -> tuple[tuple[int, int], Any]:
    """{subgraph: 1, op: 3, backend: cpu} (subgraph optional) -> ((1, 3), "cpu")."""
    extra = set(item) - {"subgraph", "op", "backend"}
    if "op" not in item or "backend" not in item or extra:
        raise ConfigError(f"{where}: op_backend_map entry {dict(item)!r} needs 'op' and "
                          f"'backend' (and optionally 'subgraph'), nothing else")
    for k in ("subgraph", "op"):
        if k in item and not _is_int(item[k]):
            raise _bad(where, f"op_backend_map entry's {k}", "an integer", item[k])
    return (item.get("subgraph", 0), item["op"]), item["backend"]


def parse_op_map(value: Any, where: str) -> dict[tuple[int, int], str]:
    """op_backend_map: {3: cpu}, {"1:3": cpu}, "0=acl_cl;1:3=cpu", [{subgraph, op, backend}]
    or one {subgraph, op, backend} mapping."""
    if isinstance(value, str):
        pairs = []
        for item in filter(None, (v.strip() for v in value.split(";"))):
            if "=" not in item:
                raise ConfigError(f"{where}: op_backend_map entry {item!r} is not INDEX=BACKEND "
                                  f"(e.g. \"0=acl_cl;3=cpu\")")
            k, v = item.split("=", 1)
            pairs.append((k.strip(), v.strip()))
    elif isinstance(value, Mapping) and "op" in value:
        pairs = [_op_entry(value, where)]
    elif isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, list) and all(isinstance(v, Mapping) for v in value):
        pairs = [_op_entry(item, where) for item in value]
    else:
        raise _bad(where, "op_backend_map", "a mapping {INDEX: backend}, a list of "
                   "{subgraph, op, backend} or an 'INDEX=backend;...' string", value)
    out: dict[tuple[int, int], str] = {}
    for k, v in pairs:
        if not isinstance(v, str) or not v:
            raise _bad(where, f"op_backend_map[{k!r}]", "a backend id (string)", v)
        out[_op_key(k, where)] = v
    return out


def _flag(key: str, value: Any, where: str) -> bool:
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in TRUE + FALSE:
        return value.strip().lower() in TRUE
    raise _bad(where, key, "a boolean (true/false, 1/0)", value)


def _path_or_flag(key: str, value: Any, where: str, default_name: str) -> str | None:
    """tracing / graph_dot_dump: a file path, or onert's flag/level (1, true) meaning
    <workspace_dir>/<default_name>; 0/false/"" turn it off."""
    if isinstance(value, str) and value.strip().lower() not in TRUE + FALSE and \
            not value.strip().isdigit():
        return value
    if isinstance(value, str):
        value = value.strip().lower()
        value = value in TRUE or (value.isdigit() and int(value) > 0)
    if isinstance(value, bool) or _is_int(value):
        return os.path.join(_WS, default_name) if value else ""
    raise _bad(where, key, f"a file path or a flag (true/1: <workspace_dir>/{default_name})", value)


def _section(key: str, value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise _bad(where, key, f"a mapping with keys {', '.join(SECTIONS[key])}", value)
    for k, v in value.items():
        if k not in SECTIONS[key]:
            raise ConfigError(f"{where}: unknown key {k!r} in {key}{_suggest(str(k), SECTIONS[key])}"
                              f"; valid keys: {', '.join(SECTIONS[key])}")
        if not (isinstance(v, str) or _is_int(v)):
            raise _bad(where, f"{key}.{k}", "a string or an integer", v)
    return dict(value)


def _choice(key: str, value: Any, where: str, valid: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise _bad(where, key, f"one of {', '.join(valid)}", value)
    if value not in valid:
        raise ConfigError(f"{where}: unknown {key} {value!r}; valid: {', '.join(valid)}"
                          f"{_suggest(value, valid)}")
    return value


def _coerce(key: str, value: Any, where: str) -> Any:
    """Check one key's value and bring it to the Config field's type (None: not set)."""
    if value is None:
        return None
    if key == "backends":
        return parse_backends(value, where)
    if key == "op_backend_map":
        return parse_op_map(value, where)
    if key == "op_backend":
        if not isinstance(value, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise _bad(where, key, "a mapping {OpName: backend id}", value)
        return dict(value)
    if key in ("num_threads", "max_tensor_bytes", "max_while_iterations"):
        if not (_is_int(value) or isinstance(value, str) and value.strip().isdigit()):
            raise _bad(where, key, "a positive integer", value)
        if int(value) < 1:
            raise ConfigError(f"{where}: {key} must be at least 1, got {value!r}")
        return int(value)
    if key in ("use_mmaped_data", "native_segments", "fuse"):
        return _flag(key, value, where)
    if key == "tracing":
        return _path_or_flag(key, value, where, "trace.json")
    if key == "graph_dot_dump":
        return _path_or_flag(key, value, where, "graph.dot")
    if key == "executor":
        return _choice(key, value, where, EXECUTORS)
    if key == "memory_planner":
        return _choice(key, value, where, PLANNERS)
    if key == "backend_paths":
        paths = [value] if isinstance(value, str) else value
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise _bad(where, key, "a list of directories", value)
        return list(paths)
    if key in SECTIONS:
        return _section(key, value, where)
    if not isinstance(value, str):          # op_backend_allops, workspace_dir
        raise _bad(where, key, "a string", value)
    return value


def from_key_values(pairs: Mapping[str, str], where: str) -> dict[str, Any]:
    """onert-style KEY=VALUE settings (environment, nnpackage config) as snake-case keys."""
    out: dict[str, Any] = {}
    for k, v in pairs.items():
        if k in ENV_KEYS:
            out[ENV_KEYS[k]] = v
        elif k.startswith("OP_BACKEND_"):
            out.setdefault("op_backend", {})[k[len("OP_BACKEND_"):]] = v
    return out


def load_yaml(path: str) -> dict[str, Any]:
    import yaml
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read config file ({e.strerror or e})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        pos = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}: malformed YAML{pos}: {getattr(e, 'problem', e)}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config file must be a mapping of keys, "
                          f"not {type(data).__name__}")
    return data


def _check_keys(d: Mapping[str, Any], where: str) -> None:
    for k in d:
        if k not in VALID_KEYS:
            raise ConfigError(f"{where}: unknown config key {k!r}{_suggest(str(k), VALID_KEYS)}; "
                              f"valid keys: {', '.join(VALID_KEYS)}")


def resolve(config: str | os.PathLike | Mapping[str, Any] | None = None,
            package: Mapping[str, str] | None = None,
            env: Mapping[str, str] | None = None, **overrides: Any) -> Config:
    """Merge every source into one validated Config (see module docstring for precedence)."""
    layers: list[tuple[str, Mapping[str, Any]]] = [("defaults", defaults())]
    if package:
        layers.append(("nnpackage config", from_key_values(package, "nnpackage config")))
    layers.append(("environment", from_key_values(os.environ if env is None else env,
                                                  "environment")))
    if isinstance(config, Mapping):
        layers.append(("config dict", config))
    elif isinstance(config, (str, os.PathLike)):
        layers.append((os.fspath(config), load_yaml(os.fspath(config))))
    elif config is not None:
        raise ConfigError(f"config must be a YAML path or a dict, not {type(config).__name__}")
    layers.append(("Session arguments", overrides))

    merged: dict[str, Any] = {}
    for where, layer in layers:
        _check_keys(layer, where)
        for k, v in layer.items():
            v = _coerce(k, v, where)
            if k in MERGED and v is not None:
                merged[k] = {**merged.get(k, {}), **v}
            elif v is not None or k not in merged:
                merged[k] = v
    for k in ("tracing", "graph_dot_dump"):        # flags: a file in the workspace; "": off
        if merged.get(k) is not None and merged[k].startswith(_WS):
            merged[k] = merged["workspace_dir"] + merged[k][len(_WS):]
        merged[k] = merged.get(k) or None
    sections = {k: merged.pop(k) for k in SECTIONS if k in merged}
    return Config(**merged, sections=sections)
