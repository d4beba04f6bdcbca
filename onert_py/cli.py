"""`onert-run` (also `python -m onert_py`): run a model, time it, dump or compare its outputs.

Modelled on onert's ``onert_run``. Exit codes: 0 success; 1 a run failed or the comparison
with TFLite failed; 2 bad arguments, an unloadable model or config, or unreadable input files.
``onert-run batch MODEL INPUT --out preds.parquet`` predicts a whole data set on Ray
(cli_batch.py; the extra ``onert_py[ray]``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from typing import Sequence

import numpy as np

from .core.exec.tracing import summary_path
from .rss import RssPoller, rusage_peak_bytes
from .tflite_compare import compare, tflite_run

PROG = "onert-run"
BATCH = "batch"          # the subcommand: `onert-run batch ...` (a model named so: ./batch)
EXIT_OK, EXIT_RUN, EXIT_USAGE = 0, 1, 2


class CliError(Exception):
    """A failure to report as one line, with an exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------- arguments
def parse_shape_run(texts: Sequence[str]) -> dict[int, tuple[int, ...]]:
    """``--shape-run`` values: onert's ``[0,[1,224,224,3],1,[2,3]]`` (pairs flattened, or a
    list of pairs) or ``0:1,224,224,3`` (several separated by ';' or repeated options)."""
    out: dict[int, tuple[int, ...]] = {}

    def add(index, shape, text):
        try:
            i = int(index)
            dims = tuple(int(d) for d in shape)
        except (TypeError, ValueError):
            raise CliError(f"--shape-run {text!r}: expected INDEX and a list of dimensions",
                           EXIT_USAGE) from None
        if i < 0 or any(d < 0 for d in dims):
            raise CliError(f"--shape-run {text!r}: negative index or dimension", EXIT_USAGE)
        out[i] = dims

    for text in texts:
        t = text.strip()
        if t.startswith("["):
            try:
                data = json.loads(t)
            except ValueError as e:
                raise CliError(f"--shape-run {text!r}: not a valid list ({e})", EXIT_USAGE) from None
            if data and all(isinstance(p, list) and len(p) == 2 and isinstance(p[1], list)
                            for p in data):
                pairs = data
            elif len(data) % 2 == 0:
                pairs = [data[k:k + 2] for k in range(0, len(data), 2)]
            else:
                raise CliError(f"--shape-run {text!r}: expected [INDEX, [DIMS], ...]", EXIT_USAGE)
            for index, shape in pairs:
                if not isinstance(shape, list):
                    raise CliError(f"--shape-run {text!r}: expected [INDEX, [DIMS], ...]",
                                   EXIT_USAGE)
                add(index, shape, text)
        else:
            for item in filter(None, (p.strip() for p in t.split(";"))):
                if ":" not in item:
                    raise CliError(f"--shape-run {item!r}: expected INDEX:D0,D1,...", EXIT_USAGE)
                index, dims = item.split(":", 1)
                add(index, [d for d in dims.replace("x", ",").split(",") if d.strip()], item)
    return out


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, description="Run a TFLite/Circle model (or nnpackage) with onert_py: "
        "random or loaded inputs, timing, memory, dumps, and a comparison with TFLite.",
        epilog="exit codes: 0 ok, 1 a run or the TFLite comparison failed, 2 bad arguments, "
        f"model, config or input files. '{PROG} {BATCH} --help': predict a whole data set "
        "(.npy, .npz or a folder of images) on a Ray cluster into Parquet")
    p.add_argument("model", help=".tflite / .circle file or nnpackage directory")
    p.add_argument("--backends", help="backends in preference order, e.g. 'cpu' or 'acl_cl;cpu'")
    p.add_argument("--config", metavar="YAML", help="a config file (onert keys in snake case)")
    p.add_argument("--load", metavar="FILE", help="inputs from .npz or .h5 (group 'value', "
                   "datasets '0'..'n-1')")
    p.add_argument("--dump", metavar="FILE", help="write the last run's outputs (.npz or .h5)")
    p.add_argument("--dump-input", metavar="FILE", help="write the inputs used (.npz or .h5)")
    p.add_argument("--num-runs", "-r", type=int, default=1, metavar="N",
                   help="timed runs (default 1)")
    p.add_argument("--warmup-runs", "-w", type=int, default=0, metavar="N",
                   help="untimed runs before them (default 0)")
    p.add_argument("--shape-run", action="append", default=[], metavar="SHAPES",
                   help="resize inputs before running: '[0,[1,224,224,3]]' or '0:1,224,224,3'")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--compare-tflite", action="store_true",
                   help="run the same inputs through the TFLite interpreter (builtin kernels) "
                   "and report the errors per output")
    p.add_argument("--trace", metavar="JSON", help="write a Chrome/Perfetto trace of every op run (config 'tracing')")
    p.add_argument("--explain", action="store_true", help="print which backend runs each op")
    p.add_argument("--mem-poll", action="store_true",
                   help="sample RSS from /proc/self/status in a thread while running")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="more detail; full tracebacks on errors")
    return p


# ---------------------------------------------------------------- inputs
def random_input(info, rng: np.random.Generator) -> np.ndarray:
    dt = np.dtype(info.dtype)
    shape = tuple(info.shape)
    if dt.kind == "f":
        if len(shape) == 4:
            return rng.uniform(0.0, 1.0, shape).astype(dt)
        return rng.standard_normal(shape).astype(dt)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dt in (np.int8, np.uint8):
        ii = np.iinfo(dt)
        return rng.integers(ii.min, ii.max, shape, endpoint=True).astype(dt)
    if dt.kind in "iu":
        return rng.integers(0, 32, shape).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    raise CliError(f"input {info.name!r}: cannot make random data of dtype {dt}; use --load",
                   EXIT_USAGE)


# ---------------------------------------------------------------- memory
def tflite_outputs(model_path: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The TFLite interpreter's outputs (builtin kernels) for the same inputs."""
    try:
        import ai_edge_litert  # noqa: F401
    except ImportError:
        raise CliError("--compare-tflite needs ai-edge-litert (pip install ai-edge-litert)",
                       EXIT_USAGE) from None
    if os.path.isdir(model_path):
        from .core.loader.nnpackage import read_manifest
        model_path = read_manifest(model_path)[0]
    try:
        return tflite_run(model_path, inputs)
    except Exception as e:
        raise CliError(f"--compare-tflite: the TFLite interpreter failed: "
                       f"{type(e).__name__}: {e}", EXIT_RUN) from e


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1e3:10.3f}"


def print_table(t: dict, lat: list[float], rss_peak: int, polled: RssPoller | None,
                warmup: int) -> None:
    mib = 1024 * 1024
    rows = []
    rows += [("model load", fmt_ms(t["load"]) + " ms"),
             ("compile (+ config)", fmt_ms(max(t["session"] - t["load"], 0.0)) + " ms")]
    rows += [("session creation", fmt_ms(t["session"]) + " ms"),
             ("first run", fmt_ms(t["first"]) + " ms")]
    if lat:
        a = np.asarray(lat)
        label = f"steady state ({len(a)} run{'s' * (len(a) != 1)}" + (
            f", after {warmup} warmup)" if warmup else ", no warmup)")
        rows.append((label, ""))
        for k, v in (("mean", a.mean()), ("median", np.median(a)),
                     ("p90", np.percentile(a, 90)), ("min", a.min()), ("max", a.max())):
            rows.append((f"  {k}", fmt_ms(float(v)) + " ms"))
    rows.append(("peak RSS (getrusage)", f"{rss_peak / mib:10.1f} MiB"))
    if polled is not None:
        if polled.samples:
            rows.append(("peak RSS during runs (polled)",
                         f"{polled.peak / mib:10.1f} MiB  ({polled.samples} samples)"))
        else:
            rows.append(("peak RSS during runs (polled)", "   n/a (no /proc/self/status)"))
    width = max(len(r[0]) for r in rows)
    print("\n" + "-" * (width + 18))
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    print("-" * (width + 18))


# ---------------------------------------------------------------- main
def create_session(model, backends, config, timings: dict[str, float]):
    """Create the Session; record its load and compile times and their total."""
    import onert_py

    t0 = time.perf_counter()
    sess = onert_py.Session(model, backends=backends, config=config)
    timings["session"] = time.perf_counter() - t0
    timings["load"] = sess.timings["load"]
    return sess


def run(args: argparse.Namespace) -> int:
    from .io_files import IOFileError, dump_tensors, file_format, load_tensors

    if args.num_runs < 1:
        raise CliError("--num-runs must be at least 1", EXIT_USAGE)
    if args.warmup_runs < 0:
        raise CliError("--warmup-runs must not be negative", EXIT_USAGE)
    shapes = parse_shape_run(args.shape_run)
    for opt in ("load", "dump", "dump_input"):   # check extensions before the slow parts
        if getattr(args, opt):
            try:
                file_format(getattr(args, opt))
            except IOFileError as e:
                raise CliError(f"--{opt.replace('_', '-')}: {e}", EXIT_USAGE) from None

    config = None
    if args.trace:
        from .config import load_yaml
        config = dict(load_yaml(args.config)) if args.config else {}
        config["tracing"] = os.path.abspath(args.trace)
        trace_before = os.stat(args.trace).st_mtime_ns if os.path.exists(args.trace) else None
    elif args.config:
        config = args.config

    timings: dict[str, float] = {}
    sess = create_session(args.model, args.backends, config, timings)

    n_in = len(sess.inputs)
    for i, shape in sorted(shapes.items()):
        if i >= n_in:
            raise CliError(f"--shape-run: input {i} out of range; the model has {n_in} input(s)",
                           EXIT_USAGE)
        sess.set_input_shape(i, shape)

    print(f"model    : {args.model}")
    print(f"backends : {', '.join(sess.backends)}")
    for kind, infos in (("input ", sess.inputs), ("output", sess.outputs)):
        for i, info in enumerate(infos):
            q = f" quant={info.quantization}" if info.quantization and args.verbose else ""
            print(f"{kind} {i} : {info.name!r} {tuple(info.shape)} {np.dtype(info.dtype)}{q}")
    if args.explain:
        print("\n" + sess.explain())

    if args.load:
        try:
            inputs = load_tensors(args.load, sess.inputs)
        except IOFileError as e:
            raise CliError(str(e), EXIT_USAGE) from None
        src = args.load
    else:
        rng = np.random.default_rng(args.seed)
        inputs = [random_input(info, rng) for info in sess.inputs]
        src = f"random (seed {args.seed})"
    print(f"inputs   : {src}")
    if args.dump_input:
        dump_tensors(args.dump_input, inputs)

    total = args.warmup_runs + args.num_runs
    try:
        from tqdm import tqdm
        bar = tqdm(total=total, desc="running", unit="run", file=sys.stderr, leave=False,
                   disable=args.no_progress or not sys.stderr.isatty())
    except ImportError:
        bar = None
    poller = RssPoller() if args.mem_poll else None
    lat: list[float] = []
    outs: list[np.ndarray] = []
    try:
        if poller:
            poller.__enter__()
        for k in range(total):
            t0 = time.perf_counter()
            outs = sess.run(inputs)
            dt = time.perf_counter() - t0
            if k == 0:
                timings["first"] = dt
            if k >= args.warmup_runs:
                lat.append(dt)
            if bar is not None:
                bar.update(1)
    finally:
        if poller:
            poller.__exit__()
        if bar is not None:
            bar.close()

    if args.verbose:
        for i, o in enumerate(outs):
            if o.size and o.dtype.kind in "fiub":
                print(f"output {i} : min {o.min()} max {o.max()} mean {o.astype(np.float64).mean():.6g}")
    print_table(timings, lat, rusage_peak_bytes(), poller, args.warmup_runs)

    if args.dump:
        dump_tensors(args.dump, outs)
        print(f"outputs written to {args.dump}")

    code = EXIT_OK
    if args.compare_tflite:
        ref = tflite_outputs(args.model, inputs)
        if not compare(outs, ref, [o.name for o in sess.outputs]):
            print(f"{PROG}: error: outputs differ from TFLite in count, shape or dtype",
                  file=sys.stderr)
            code = EXIT_RUN

    if args.trace:
        print(sess.trace_summary())
    sess.close()                       # writes the trace, if one was asked for
    if args.trace:
        path = args.trace
        written = os.path.exists(path) and (trace_before is None
                                            or os.stat(path).st_mtime_ns != trace_before)
        if written:
            print(f"trace written to {path} (summary: {summary_path(path)})")
        else:
            print(f"{PROG}: warning: no trace was written to {path}: the config key 'tracing' "
                  f"is accepted but this version of the runtime does not write traces yet",
                  file=sys.stderr)
    return code


def exit_code_of(e: BaseException) -> int:
    return e.code if isinstance(e, CliError) else exit_code_for(type(e))


def exit_code_for(cls: type) -> int:
    from . import errors
    from .io_files import IOFileError
    if issubclass(cls, (errors.ModelLoadError, errors.ConfigError, errors.CompileError,
                        errors.BackendNotAvailableError, errors.InputError, IOFileError)):
        return EXIT_USAGE
    return EXIT_RUN    # ExecutionError, other run-time failures, internal errors


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    batch = argv[:1] == [BATCH]
    if batch:
        from .cli_batch import build_batch_parser, run_batch, worker_failure
    args = (build_batch_parser().parse_args(argv[1:]) if batch
            else build_parser().parse_args(argv))
    try:
        return run_batch(args) if batch else run(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if args.verbose:
            traceback.print_exc()
        from_worker = worker_failure(e) if batch else None
        if from_worker is not None:
            text, code = from_worker
        else:
            kind = "" if isinstance(e, CliError) else f"{type(e).__name__}: "
            text, code = kind + str(e), exit_code_of(e)
        msg = " ".join(text.split()) or type(e).__name__
        print(f"{PROG}: error: {msg}", file=sys.stderr)
        return code


if __name__ == "__main__":
    raise SystemExit(main())
