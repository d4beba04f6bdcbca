"""Micro-benchmark of acl_neon's float32 GEMM (module _gemm) on MobileNetV2's convolutions.

    python bench/neon_gemm.py [--threads 1 2] [--isa avx512 avx2 baseline] [--repeat 30]

Prints, per ISA and thread count, each layer's time and GFLOP/s and the total over the model's
Conv2D/FullyConnected layers (pointwise layers as FC-shaped GEMMs, the 3x3 stem as a Conv2D).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from onert_py.backends.acl_neon import native
from onert_py.core.exec.native import _native, run_step

# (M, K, N, count) of MobileNetV2's 1x1 convolutions and classifier
POINTWISE = [(12544, 32, 16, 1), (12544, 16, 96, 1), (3136, 96, 24, 1), (3136, 24, 144, 2),
             (3136, 144, 24, 1), (784, 144, 32, 1), (784, 32, 192, 3), (784, 192, 32, 2),
             (196, 192, 64, 1), (196, 64, 384, 4), (196, 384, 64, 3), (196, 384, 96, 1),
             (196, 96, 576, 3), (196, 576, 96, 2), (49, 576, 160, 1), (49, 160, 960, 3),
             (49, 960, 160, 2), (49, 960, 320, 1), (49, 320, 1280, 1), (1, 1280, 1000, 1)]
STEM = (1, 224, 224, 3, 3, 3, 2, 2, 1, 1, 0, 0, 112, 112, 32)   # 3x3/2 SAME: pad 0 top/left


def step(plan, x: np.ndarray, y: np.ndarray, threads: int):
    """plan bound to x and y as the runtime binds it: a native step over their slots."""
    return plan.bind(_native.slot(x), _native.slot(y), threads)


def timed(fn, repeat: int) -> float:
    """The best of `repeat` calls (the machine is shared: the minimum is the kernel's time)."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--isa", nargs="+", default=None)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--quiet", action="store_true", help="totals only")
    args = ap.parse_args()
    lib = native.module("gemm")
    rng = np.random.default_rng(0)
    for isa in args.isa or native.available_isas()[::-1]:
        native.set_isa(isa)
        for threads in args.threads:
            total_t = total_f = 0.0
            g = STEM
            w = rng.standard_normal((g[14], g[4], g[5], g[3]), np.float32)
            plan = lib.ConvPlan(w, None, list(g), 0.0, 6.0)
            x = rng.standard_normal((1, 224, 224, 3), np.float32)
            y = np.empty((1, 112, 112, 32), np.float32)
            s = step(plan, x, y, threads)
            dt = timed(lambda: run_step(s), args.repeat)
            flops = 2 * y.size * 27
            total_t, total_f = dt, flops
            if not args.quiet:
                print(f"  stem 3x3/2 conv: {dt * 1e6:8.1f} us {flops / dt / 1e9:6.1f} GFLOP/s")
            for m, k, n, count in POINTWISE:
                plan = lib.FcPlan(rng.standard_normal((n, k), np.float32),
                                  rng.standard_normal(n, np.float32), m, 0.0, 6.0)
                x = rng.standard_normal((m, k), np.float32)
                y = np.empty((m, n), np.float32)
                s = step(plan, x, y, threads)
                dt = timed(lambda: run_step(s), args.repeat)
                total_t += dt * count
                total_f += 2 * m * n * k * count
                if not args.quiet:
                    print(f"  {m:6d}x{k:4d}x{n:4d}: {dt * 1e6:8.1f} us "
                          f"{2 * m * n * k / dt / 1e9:6.1f} GFLOP/s")
            print(f"{isa} threads={threads}: {total_t * 1e3:.2f} ms "
                  f"{total_f / total_t / 1e9:.1f} GFLOP/s over MobileNetV2's GEMM layers")


if __name__ == "__main__":
    main()
