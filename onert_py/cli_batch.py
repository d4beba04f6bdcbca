"""`onert-run batch MODEL INPUT --out preds.parquet`: the Ray batch job's command line
(onert_py.ray.job.run_job; the extra ``onert_py[ray]``). cli.py's main() dispatches here,
with its exit codes and one-line errors; a failure inside a Ray worker is reported as the
onert_py error it carries."""
from __future__ import annotations

import argparse

from .cli import BATCH, EXIT_OK, EXIT_USAGE, PROG, CliError, exit_code_for


def build_batch_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} {BATCH}", description="Predict every row of a data set with a model on a "
        "Ray cluster (Ray Data, one Session per worker) and write the predictions to Parquet: "
        "a column 'id' (row index in the file, or image file name) and one per model output.",
        epilog="needs the extra onert_py[ray]. Exit codes: 0 ok, 1 a run failed, 2 bad "
        "arguments, model, config or input (a malformed row is named by its id). "
        "docs/ray.md: starting a cluster and running the job on it")
    p.add_argument("model", help=".tflite / .circle file or nnpackage directory")
    p.add_argument("input", help=".npy (one-input model), .npz (arrays named after the inputs, "
                   "or '0'..'n-1'), one row per sample; or a folder of images, resized to the "
                   "model's input")
    p.add_argument("--out", "-o", required=True, metavar="PARQUET",
                   help="where to write the predictions (*.parquet)")
    p.add_argument("--backends", help="backends in preference order, e.g. 'cpu' or 'acl_neon;cpu'")
    p.add_argument("--config", metavar="YAML", help="a config file (onert keys in snake case)")
    p.add_argument("--batch-size", type=int, default=64, metavar="N",
                   help="rows per model run (default 64)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="Ray actors, one Session each (default: the cluster's CPUs / --num-cpus)")
    p.add_argument("--num-cpus", type=float, default=1, metavar="C",
                   help="CPUs per worker, and the Session's threads (default 1)")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="join this Ray cluster ('auto' or HOST:6379); default: start a local one")
    p.add_argument("--image-range", metavar="LO,HI",
                   help="real values of pixels 0 and 255 (default: 0,1 for a float input, the "
                   "quantized range of a quantized one)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--verbose", "-v", action="store_true", help="full tracebacks on errors")
    return p


def run_batch(args: argparse.Namespace) -> int:
    """`onert-run batch`: the Ray batch job (onert_py.ray.job.run_job)."""
    try:
        from .ray.job import run_job
    except ImportError as e:
        raise CliError(f"{BATCH} needs Ray: pip install \"onert_py[ray]\" ({e})", EXIT_USAGE) \
            from None
    image_range = None
    if args.image_range:
        try:
            lo, hi = (float(v) for v in args.image_range.split(","))
        except ValueError:
            raise CliError(f"--image-range {args.image_range!r}: expected LO,HI", EXIT_USAGE) \
                from None
        image_range = (lo, hi)
    rows = run_job(args.model, args.input, args.out, backends=args.backends, config=args.config,
                   batch_size=args.batch_size, workers=args.workers, num_cpus=args.num_cpus,
                   ray_address=args.ray_address, image_range=image_range,
                   progress=not args.no_progress)
    print(f"{rows} rows predicted, written to {args.out}")
    return EXIT_OK


def worker_failure(e: BaseException) -> tuple[str, int] | None:
    """A Ray task's failure as (the onert_py error it carries, exit code), if it carries one."""
    if type(e).__module__.split(".")[0] != "ray":
        return None
    from . import errors
    from .ray import predictor
    from .ray.job import worker_error
    found = worker_error(e)
    if found is None:
        return None
    name, msg = found
    cls = getattr(errors, name, None) or getattr(predictor, name, errors.OnertPyError)
    return f"{name}: {msg}", exit_code_for(cls)
