"""Micro-benchmark of the acl_cl GEMM kernel (conv.cl conv_gemm as a 1x1 convolution):
GFLOP/s for an M x K by K x N product on the chosen OpenCL device, with the blocking the
backend picks for that shape (ops/gemm.py gemm_launch).

    python bench/cl_gemm.py [--m 3136] [--k 256] [--n 256] [--runs 10]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from onert_py.backends.acl_cl.device import describe, import_cl, select_device
from onert_py.backends.acl_cl.ops.gemm import gemm_launch
from onert_py.backends.acl_cl.runtime import ClRuntime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=3136)
    ap.add_argument("--k", type=int, default=256)
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    cl = import_cl()
    dev = select_device(cl)
    rt = ClRuntime(cl, dev, None)
    m, k, n = a.m, a.k, a.n
    opts, gsize, pad = gemm_launch(m, n)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((m, k), np.float32)
    w = np.zeros((k, pad), np.float32)
    w[:, :n] = rng.standard_normal((k, n), np.float32)
    bx, bw = rt.buffer(0, x), rt.buffer(0, w)
    bb, by = rt.buffer(0, np.zeros(pad, np.float32)), rt.buffer(m * n * 4)
    knl = cl.Kernel(rt.program("conv.cl", opts), "conv_gemm")
    ints = [np.int32(v) for v in (1, m, k, 1, m, n, pad, 1, 1, 1, 1, 1, 1, 0, 0, m)]
    knl.set_args(bx, bw, bb, by, *ints, np.float32(-np.inf), np.float32(np.inf))
    cl.enqueue_nd_range_kernel(rt.queue, knl, gsize, None)
    rt.finish()
    t = time.perf_counter()
    for _ in range(a.runs):
        cl.enqueue_nd_range_kernel(rt.queue, knl, gsize, None)
    rt.finish()
    dt = (time.perf_counter() - t) / a.runs
    y = np.empty((m, n), np.float32)
    cl.enqueue_copy(rt.queue, y, by, is_blocking=True)
    err = float(np.abs(y - x @ w[:, :n]).max())
    print(f"device {describe(dev)}: {m}x{k} . {k}x{n} ({opts}): {dt * 1e3:.2f} ms, "
          f"{2 * m * n * k / dt / 1e9:.1f} GFLOP/s (max abs error {err:.2e})")


if __name__ == "__main__":
    main()
