"""One local Ray (2 CPUs) for every test of this folder, started once and shut down after the
folder's last test; the folder's tests skip where Ray is not installed."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="package")
def ray_local():
    """A local Ray with 2 CPUs, no dashboard, Ray Data's progress bars off."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install \"onert_py[ray]\")")
    pytest.importorskip("ray.data", reason="Ray Data is not installed (the extra onert_py[ray])")
    import ray.data

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    try:
        yield ray
    finally:
        ray.shutdown()
