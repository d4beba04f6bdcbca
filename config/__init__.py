"""Configuration: onert's keys in snake case, from arguments, YAML, environment, nnpackage.

Precedence, strongest first: arguments to Session, the YAML file (or dict), environment
variables, the nnpackage's config, the packaged defaults (default.yaml).
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Mapping

import yaml

from ..errors import ConfigError

EXECUTORS = ("Linear",)
PLANNERS = ("WIC", "FirstFit", "Bump")

# onert's KEY names (environment, nnpackage config) -> snake-case keys
ENV_KEYS = {
    "BACKENDS": "backends", "OP_BACKEND_ALLOPS": "op_backend_allops",
    "OP_BACKEND_MAP": "op_backend_map", "EXECUTOR": "executor",
    "CPU_MEMORY_PLANNER": "memory_planner", "NUM_THREADS": "num_threads",
    "TRACING_PATH": "tracing", "WORKSPACE_DIR": "workspace_dir",
    "GRAPH_DOT_DUMP": "graph_dot_dump", "USE_MMAPED_DATA": "use_mmaped_data",
}


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
    sections: dict[str, Any] = field(default_factory=dict)   # backends' own sections


def defaults() -> dict[str, Any]:
    text = resources.files("onert_py.config").joinpath("default.yaml").read_text("utf-8")
    return yaml.safe_load(text)


VALID_KEYS = tuple(defaults()) + ("opencl",)


def _suggest(word: str, valid) -> str:
    near = difflib.get_close_matches(word, list(valid), n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def parse_backends(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        items = [v.strip() for v in value.replace(",", ";").split(";")]
    elif isinstance(value, (list, tuple)):
        items = [str(v).strip() for v in value]
    else:
        raise ConfigError(f"{where}: backends must be a list or a ';'-separated string, "
                          f"not {type(value).__name__}")
    items = [v for v in items if v]
    if not items:
        raise ConfigError(f"{where}: backends is empty; name at least one, e.g. 'cpu'")
    return items


def parse_op_map(value: Any, where: str) -> dict[tuple[int, int], str]:
    """op_backend_map: {3: cpu}, {"1:3": cpu}, "0=acl_cl;3=cpu", or [{subgraph, op, backend}]."""
    out: dict[tuple[int, int], str] = {}
    if isinstance(value, str):
        pairs = []
        for item in filter(None, (v.strip() for v in value.split(";"))):
            if "=" not in item:
                raise ConfigError(f"{where}: op_backend_map entry {item!r} is not INDEX=BACKEND")
            k, v = item.split("=", 1)
            pairs.append((k.strip(), v.strip()))
    elif isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, list):
        pairs = []
        for item in value:
            if not isinstance(item, Mapping) or "op" not in item or "backend" not in item:
                raise ConfigError(f"{where}: op_backend_map list entries need 'op' and 'backend'")
            pairs.append(((int(item.get("subgraph", 0)), item["op"]), item["backend"]))
    else:
        raise ConfigError(f"{where}: op_backend_map must be a mapping or 'i=backend;...' string")
    for k, v in pairs:
        try:
            if isinstance(k, tuple):
                sg, op = int(k[0]), int(k[1])
            elif isinstance(k, str) and ":" in k:
                sg, op = (int(p) for p in k.split(":", 1))
            else:
                sg, op = 0, int(k)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: op_backend_map key {k!r} is not an op index "
                              f"(N or SUBGRAPH:N)") from None
        out[(sg, op)] = str(v)
    return out


def _coerce(key: str, value: Any, where: str) -> Any:
    if value is None:
        return None
    try:
        if key == "backends":
            return parse_backends(value, where)
        if key == "op_backend_map":
            return parse_op_map(value, where)
        if key == "op_backend":
            if not isinstance(value, Mapping):
                raise ConfigError(f"{where}: op_backend must map op names to backend ids")
            return {str(k): str(v) for k, v in value.items()}
        if key in ("num_threads", "max_tensor_bytes"):
            n = int(value)
            if n < 1:
                raise ConfigError(f"{where}: {key} must be at least 1, got {value!r}")
            return n
        if key == "use_mmaped_data":
            if isinstance(value, str):
                return value.strip().lower() in ("1", "true", "yes", "on")
            return bool(value)
        if key == "executor" and value not in EXECUTORS:
            raise ConfigError(f"{where}: unknown executor {value!r}; valid: {', '.join(EXECUTORS)}"
                              f"{_suggest(str(value), EXECUTORS)}")
        if key == "memory_planner" and value not in PLANNERS:
            raise ConfigError(f"{where}: unknown memory_planner {value!r}; valid: "
                              f"{', '.join(PLANNERS)}{_suggest(str(value), PLANNERS)}")
        if key == "backend_paths":
            return [str(v) for v in (value if isinstance(value, list) else [value])]
    except (TypeError, ValueError) as e:
        if isinstance(e, ConfigError):
            raise
        raise ConfigError(f"{where}: {key} has an invalid value {value!r} ({e})") from None
    return value


def from_key_values(pairs: Mapping[str, str], where: str) -> dict[str, Any]:
    """onert-style KEY=VALUE settings (environment, nnpackage config) as snake-case keys."""
    out: dict[str, Any] = {}
    for k, v in pairs.items():
        if k in ENV_KEYS:
            out[ENV_KEYS[k]] = v
        elif k.startswith("OP_BACKEND_") and k not in ENV_KEYS:
            out.setdefault("op_backend", {})[k[len("OP_BACKEND_"):]] = v
    return out


def load_yaml(path: str) -> dict[str, Any]:
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
    env = os.environ if env is None else env
    layers.append(("environment", from_key_values(env, "environment")))
    if config is not None:
        if isinstance(config, Mapping):
            layers.append(("config dict", config))
        elif isinstance(config, (str, os.PathLike)):
            layers.append((os.fspath(config), load_yaml(os.fspath(config))))
        else:
            raise ConfigError(f"config must be a YAML path or a dict, not {type(config).__name__}")
    layers.append(("Session arguments", {k: v for k, v in overrides.items() if v is not None}))
    merged: dict[str, Any] = {}
    for where, layer in layers:
        _check_keys(layer, where)
        for k, v in layer.items():
            v = _coerce(k, v, where)
            if k == "op_backend" and v:
                merged.setdefault("op_backend", {}).update(v)
            elif k == "op_backend_map" and v:
                merged.setdefault("op_backend_map", {}).update(v)
            elif v is not None or k not in merged:
                merged[k] = v
    sections = {k: merged.pop(k) for k in list(merged) if k == "opencl"}
    merged = {k: v for k, v in merged.items() if v is not None or k in ("backends",)}
    return Config(**{k: (v if v is not None else getattr(Config, k, None))
                     for k, v in merged.items()}, sections=sections)
