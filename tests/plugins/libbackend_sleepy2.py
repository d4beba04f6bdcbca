"""The sleepy test backend (libbackend_sleepy.py, next to this file) under the id "sleepy2"."""
from __future__ import annotations

import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "libbackend_sleepy_for_sleepy2", os.path.join(os.path.dirname(__file__), "libbackend_sleepy.py"))
sleepy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sleepy)
SLEEP_S, FAIL = sleepy.SLEEP_S, sleepy.FAIL


def onert_backend_create():
    return sleepy.SleepyBackend("sleepy2")


def onert_backend_destroy(backend) -> None:
    pass
