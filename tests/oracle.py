"""Reference results from the TFLite interpreter, for comparing against onert_py."""
from __future__ import annotations

from onert_py.tflite_compare import tflite_run

__all__ = ["tflite_run"]
