"""The op-test harness itself: unavailable backends skip with the reason, mismatches fail."""
from __future__ import annotations

import numpy as np
import pytest

from builders.single_op import unary_model
from op_harness import backend_or_skip, check_op


def test_backend_or_skip_available():
    assert backend_or_skip("cpu") == "cpu"


def test_backend_or_skip_unavailable_gives_reason():
    with pytest.raises(pytest.skip.Exception, match="no_such_backend.*not available"):
        backend_or_skip("no_such_backend")


def test_check_op_detects_a_mismatch():
    x = np.array([[-1.0, 2.0, 7.0]], np.float32)
    with pytest.raises(AssertionError, match="output 0"):
        check_op(unary_model("RELU", (1, 3)), [x], reference=unary_model("RELU6", (1, 3)))


def test_check_op_resizes_inputs():
    """An input of another shape than declared resizes the model on both sides."""
    out = check_op(unary_model("RELU", (1, 3)), [np.ones((4, 3), np.float32)])
    assert out[0].shape == (4, 3)
