"""nnpackage directories: metadata/MANIFEST (JSON) naming the models and a config file."""
from __future__ import annotations

import os

from ...errors import ModelLoadError

MANIFEST = os.path.join("metadata", "MANIFEST")


def read_manifest(pkg_dir: str) -> tuple[str, str | None, dict[str, str]]:
    """(primary model path, its declared type or None, configs[0] KEY=VALUE pairs)."""
    import json                  # here: loading a plain model file never needs it
    path = os.path.join(pkg_dir, MANIFEST)
    if not os.path.isfile(path):
        raise ModelLoadError(f"{pkg_dir}: a directory, but not an nnpackage (no {MANIFEST})")
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        raise ModelLoadError(f"{path}: unreadable MANIFEST ({e})") from e
    if not isinstance(manifest, dict):
        raise ModelLoadError(f"{path}: MANIFEST must be a JSON object")
    models = manifest.get("models")
    if not isinstance(models, list) or not models or not isinstance(models[0], str):
        raise ModelLoadError(f"{path}: 'models' must be a non-empty list of file names")
    types = manifest.get("model-types") or []
    model_type = types[0] if isinstance(types, list) and types else None
    model_path = os.path.join(pkg_dir, models[0])
    config: dict[str, str] = {}
    configs = manifest.get("configs") or []
    if isinstance(configs, list) and configs:
        cfg_path = os.path.join(pkg_dir, "metadata", str(configs[0]))
        config = read_key_values(cfg_path)
    return model_path, model_type, config


def read_key_values(path: str) -> dict[str, str]:
    """onert's config file format: KEY=VALUE lines, '#' comments."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise ModelLoadError(f"{path}: nnpackage config listed in MANIFEST is unreadable ({e})") from e
    out: dict[str, str] = {}
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            raise ModelLoadError(f"{path}:{n}: expected KEY=VALUE, got {line!r}")
        key, value = line.split("=", 1)
        out[key.strip()] = value.strip()
    return out
