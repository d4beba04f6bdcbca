"""GGML block-quantized mat-vec on acl_neon against this machine's memory bandwidth.

    python bench/bench_ggml.py [--threads 1 2] [--types GGML_Q4_0 ...] [--rows 16384]
                               [--depth 8192] [--rounds 7] [--isa avx512 avx2 baseline]
                               [--session]

Memory bandwidth, measured three ways on 128 MiB buffers (4x the L3 of the test VM; each probe
takes about as long as a mat-vec, so both see the same share of a busy machine):
  numpy copy   np.copyto between two arrays; bytes read + bytes written per second
  native copy  acl_neon's byte copy (module _core, memcpy split over threads); read + written
  numpy read   a float32 dot product of two arrays (OpenBLAS sdot, threads capped with
               threadpoolctl); bytes read per second
The reference is the largest of the three at the same thread count (the strictest target).

The mat-vec is FULLY_CONNECTED with one input row and GGML weights [rows, depth] (default
16384 x 8192: 75 MB of Q4_0, 142 MB of Q8_0, well past the 32 MiB L3 of the 2-core test VM),
timed through the native plan (module _ggml: input quantization + block dots), reported as GB/s
of weight bytes read. With --session it also times a whole onert_py Session (acl_neon) running
the one-op model. Rounds interleave the bandwidth probes and the kernels. Each figure is the
best of its rounds (the machine is shared: the slower rounds measure the neighbours), and the
ratio compares bests with bests; the median of the rounds is printed beside it.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from onert_py.backends.acl_neon import native
from onert_py.core.exec import native as rt
from onert_py.core.quant import ggml_blocks

MIB = 1 << 20


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def bandwidth_probes(threads: int, nbytes: int):
    """{name: (bytes moved per call, fn)} of the bandwidth probes at `threads`."""
    from threadpoolctl import threadpool_limits
    core = native.module("core")
    a = np.ones(nbytes // 4, np.float32)
    b = np.ones(nbytes // 4, np.float32)
    c = np.empty_like(a)

    def dot():
        with threadpool_limits(threads):
            a.dot(b)
    copy = core.BytesPlan(a.nbytes).bind(rt._native.slot(a), rt._native.slot(c), threads)
    return {"numpy copy": (2 * nbytes, lambda: np.copyto(c, a)),
            "native copy": (2 * nbytes, lambda: rt.run_step(copy)),
            "numpy read": (2 * nbytes, dot)}


def weights(type_name: str, rows: int, depth: int, rng: np.random.Generator) -> np.ndarray:
    """Random blocks: random value bytes, fp16 scales of 1/16 (no NaN/inf from random bits)."""
    fmt = ggml_blocks.block_format(type_name)
    blocks = np.frombuffer(rng.bytes(rows * ggml_blocks.row_bytes(fmt, depth)), np.uint8)
    blocks = blocks.reshape(rows, depth // 32, fmt.block_bytes).copy()
    blocks[..., :fmt.header] = np.full(fmt.header // 2, 1 / 16, "<f2").view(np.uint8)
    return blocks.reshape(rows, -1)


def session_runner(type_name: str, w: np.ndarray, rows: int, depth: int, threads: int):
    import onert_py
    from onert_py.model_builder import ModelBuilder
    b = ModelBuilder("circle")
    x = b.add_input("x", (1, depth))
    wi = b.add_blocks("w", w, type_name, (rows, depth))
    y = b.add_tensor("y", (1, rows))
    b.add_op("FULLY_CONNECTED", [x, wi, -1], [y])
    b.add_output(y)
    sess = onert_py.Session(b.build(), backends="acl_neon", config={"num_threads": threads})
    xv = np.random.default_rng(1).standard_normal((1, depth)).astype(np.float32)
    return lambda: sess.run([xv])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--types", nargs="+", default=list(ggml_blocks.FORMATS))
    ap.add_argument("--rows", type=int, default=16384)
    ap.add_argument("--depth", type=int, default=8192)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--isa", nargs="+", default=None, help="default: the best this CPU has")
    ap.add_argument("--session", action="store_true", help="also time a whole Session run")
    ap.add_argument("--buffer-mib", type=int, default=128)
    args = ap.parse_args()
    lib = native.module("ggml")
    rng = np.random.default_rng(0)
    isas = args.isa or [native.detected_isa()]
    x = rng.standard_normal((1, args.depth)).astype(np.float32)
    y = np.empty((1, args.rows), np.float32)
    mats = {t: weights(t, args.rows, args.depth, rng) for t in args.types}
    print(f"GGML mat-vec [{args.rows} x {args.depth}], best of {args.rounds} interleaved rounds")
    for threads in args.threads:
        probes = bandwidth_probes(threads, args.buffer_mib * MIB)
        runs = {}
        for isa in isas:
            for t, w in mats.items():
                plan = lib.FcPlan(w, t, args.rows, args.depth, None, 1, -np.inf, np.inf)
                step = plan.bind(rt._native.slot(x), rt._native.slot(y), threads)
                runs[(isa, t, "kernel")] = (w.nbytes, lambda s=step: rt.run_step(s))
                if args.session:
                    runs[(isa, t, "session")] = (w.nbytes, session_runner(
                        t, w, args.rows, args.depth, threads))
        times: dict = {k: [] for k in [*probes, *runs]}
        for fn in [f for _, f in probes.values()] + [f for _, f in runs.values()]:
            fn()                                            # warm up
        for _ in range(args.rounds):
            for name, (_, fn) in probes.items():
                times[name].append(timed(fn))
            for key, (_, fn) in runs.items():
                native.set_isa(key[0])
                times[key].append(timed(fn))
        best = {k: min(v) for k, v in times.items()}
        median = {k: float(np.median(v)) for k, v in times.items()}
        bw = {name: n / best[name] / 1e9 for name, (n, _) in probes.items()}
        ref = max(bw.values())
        print(f"\nthreads={threads}: memory bandwidth (best; median) " +
              ", ".join(f"{k} {v:.1f} GB/s ({n / median[k] / 1e9:.1f})"
                        for (k, v), (n, _) in zip(bw.items(), probes.values())) +
              f"; reference {ref:.1f} GB/s")
        for key, (n, _) in runs.items():
            gbs = n / best[key] / 1e9
            print(f"  {key[1]:10s} {key[0]:8s} {key[2]:7s} {best[key] * 1e3:8.2f} ms "
                  f"{gbs:6.1f} GB/s of weights = {gbs / ref:5.0%} of bandwidth "
                  f"(median {median[key] * 1e3:.2f} ms, {n / median[key] / 1e9:.1f} GB/s)")
    native.set_isa(native.detected_isa())


if __name__ == "__main__":
    main()
