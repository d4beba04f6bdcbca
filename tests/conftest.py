"""Shared test setup: tests import helpers (oracle, model builders) from this folder."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from op_harness import BACKENDS, backend_or_skip  # noqa: E402

SEED = 20240607


@pytest.fixture
def rng() -> np.random.Generator:
    """A NumPy generator with a fixed seed, fresh for every test (order-independent data)."""
    return np.random.default_rng(SEED)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Each backend of the op suite in turn; skipped with the reason where it cannot load."""
    return backend_or_skip(request.param)


@pytest.fixture(scope="module")
def cl_ready() -> None:
    """Skip (with the runtime's reason) where the acl_cl backend has no OpenCL device."""
    backend_or_skip("acl_cl")
