"""Adapters that give every runtime the same small interface.

Runtime keys (also used on the command line of the memory child):

* ``onert_py[<backends>]`` - this project's ``onert_py.Session`` (e.g. ``onert_py[cpu]``)
* ``xnnpack``  - LiteRT ``Interpreter`` with its default resolver (XNNPACK delegate applied)
* ``builtin``  - LiteRT builtin kernels (``BUILTIN_WITHOUT_DEFAULT_DELEGATES``)
* ``xnnpack:invoke``, ``builtin:invoke`` - the same interpreters timed steady-state: after the
  first call (set_tensor per input, invoke, get_tensor per output) only ``invoke()``
* ``onert``    - the Samsung ``onert`` pip package, ``onert.infer.session(path, "cpu")``

Libraries are imported lazily so that a process only loads what it measures.
"""
from __future__ import annotations

import os
import re
from typing import Sequence

import numpy as np

from .common import (InputSpec, Unavailable, captured_stderr, interesting_stderr, short_reason,
                     to_np_dtype, to_shape)

XNNPACK = "xnnpack"
BUILTIN = "builtin"
ONERT = "onert"
INVOKE = ":invoke"
XNNPACK_INVOKE = XNNPACK + INVOKE
BUILTIN_INVOKE = BUILTIN + INVOKE

_ONERT_PY_RE = re.compile(r"^onert_py\[(?P<backends>.+)\]$")


def onert_py_key(backends: str) -> str:
    """Runtime key of onert_py with the given backend string."""
    return f"onert_py[{backends}]"


def parse_onert_py_key(key: str) -> str | None:
    """The backend string of an ``onert_py[...]`` key, else None."""
    m = _ONERT_PY_RE.match(key)
    return m.group("backends") if m else None


def label(key: str, single_onert_py: bool = True) -> str:
    """Column label of a runtime key."""
    backends = parse_onert_py_key(key)
    if backends is not None:
        return "onert_py" if single_onert_py and backends == "cpu" else key
    return {XNNPACK: "XNNPACK", BUILTIN: "LiteRT builtin", ONERT: "onert",
            XNNPACK_INVOKE: "XNNPACK invoke", BUILTIN_INVOKE: "builtin invoke"}.get(key, key)


class Runner:
    """One loaded model in one runtime: ``input_specs()`` and ``run(inputs) -> outputs``."""

    key: str = ""

    def input_specs(self) -> list[InputSpec]:
        """Static input shapes and dtypes in model input order."""
        raise NotImplementedError

    def run(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """One inference; returns the outputs in model output order."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the session (best effort)."""


# --------------------------------------------------------------------------- onert_py
def onert_py_import_error() -> str | None:
    """None when ``onert_py.Session`` can be used, else why not."""
    try:
        import onert_py  # noqa: F401
    except Exception as e:  # noqa: BLE001 - any import failure means n/a
        return f"import onert_py failed: {short_reason(e, 70)}"
    if not hasattr(onert_py, "Session"):
        return "onert_py.Session not implemented yet"
    return None


class OnertPyRunner(Runner):
    """``onert_py.Session(path, backends=..., config={"num_threads": T})``."""

    def __init__(self, model: str, threads: int, backends: str = "cpu") -> None:
        err = onert_py_import_error()
        if err:
            raise Unavailable(err)
        import onert_py

        self.key = onert_py_key(backends)
        try:
            self.sess = onert_py.Session(model, backends=backends, config={"num_threads": threads})
        except Exception as e:  # noqa: BLE001
            raise Unavailable(short_reason(e)) from e

    def input_specs(self) -> list[InputSpec]:
        specs = []
        for i, info in enumerate(self.sess.inputs):
            name = getattr(info, "name", f"input{i}")
            specs.append(InputSpec(str(name), to_shape(info.shape), to_np_dtype(info.dtype)))
        return specs

    def run(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        # exactly what a user writes: sess.run(xs) with xs a list of arrays
        return self.sess.run(inputs if type(inputs) is list else list(inputs))

    def close(self) -> None:
        close = getattr(self.sess, "close", None)
        if callable(close):
            close()
        self.sess = None


# --------------------------------------------------------------------------- LiteRT
class LiteRTRunner(Runner):
    """LiteRT ``Interpreter`` with XNNPACK (default resolver) or builtin kernels only. A run is
    set_tensor per input + invoke + get_tensor per output; with ``invoke_only``, every run
    after the first (which sets the inputs and returns the outputs) is ``invoke()`` alone."""

    def __init__(self, model: str, threads: int, xnnpack: bool, invoke_only: bool = False) -> None:
        try:
            from ai_edge_litert.interpreter import Interpreter, OpResolverType
        except Exception as e:  # noqa: BLE001
            raise Unavailable(f"import ai_edge_litert failed: {short_reason(e, 60)}") from e
        self.key = (XNNPACK if xnnpack else BUILTIN) + (INVOKE if invoke_only else "")
        self._first: list[np.ndarray] | None = None
        self._invoke_only = invoke_only
        kwargs: dict = {"model_path": model, "num_threads": threads}
        if not xnnpack:
            kwargs["experimental_op_resolver_type"] = OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        with captured_stderr() as lines:
            try:
                self.interp = Interpreter(**kwargs)
                self.interp.allocate_tensors()
                err = None
            except Exception as e:  # noqa: BLE001
                err = e
        if err is not None:
            native = interesting_stderr(lines)
            msg = short_reason(err)
            raise Unavailable(f"{msg} ({native})" if native and native not in msg else msg) from err
        self._in = [d["index"] for d in self.interp.get_input_details()]
        self._out = [d["index"] for d in self.interp.get_output_details()]

    def input_specs(self) -> list[InputSpec]:
        return [InputSpec(d["name"], tuple(int(x) for x in d["shape"]), np.dtype(d["dtype"]))
                for d in self.interp.get_input_details()]

    def run(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        interp = self.interp
        if self._first is not None:
            interp.invoke()
            return self._first
        for idx, arr in zip(self._in, inputs):
            interp.set_tensor(idx, arr)
        interp.invoke()
        outs = [interp.get_tensor(idx) for idx in self._out]
        if self._invoke_only:
            self._first = outs
        return outs

    def close(self) -> None:
        self.interp = None


# --------------------------------------------------------------------------- onert
class OnertRunner(Runner):
    """The ``onert`` package. Its thread count comes from the ``NUM_THREADS`` environment
    variable, read when a session is created (see README: create the largest count first)."""

    def __init__(self, model: str, threads: int) -> None:
        os.environ["NUM_THREADS"] = str(threads)
        with captured_stderr() as lines:
            try:
                import onert

                self.sess = onert.infer.session(model, backends="cpu")
                err = None
            except Exception as e:  # noqa: BLE001
                err = e
        if err is not None:
            native = interesting_stderr(lines)
            msg = short_reason(err, 60)
            raise Unavailable(f"{native} ({msg})" if native else msg) from err
        self.key = ONERT

    def input_specs(self) -> list[InputSpec]:
        specs = []
        for i, info in enumerate(self.sess.get_inputs_tensorinfo()):
            specs.append(InputSpec(f"input{i}", tuple(int(d) for d in info.dims[: info.rank]),
                                   np.dtype(info.dtype)))
        return specs

    def run(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return self.sess.infer(list(inputs))

    def close(self) -> None:
        self.sess = None


# --------------------------------------------------------------------------- factory
def preload(key: str) -> None:
    """Import the library behind ``key`` (used before measuring a baseline RSS)."""
    if parse_onert_py_key(key) is not None:
        try:
            import onert_py  # noqa: F401
        except Exception:  # noqa: BLE001 - reported later by create_runner
            pass
    elif key in (XNNPACK, BUILTIN, XNNPACK_INVOKE, BUILTIN_INVOKE):
        from ai_edge_litert.interpreter import Interpreter  # noqa: F401
    elif key == ONERT:
        with captured_stderr():
            import onert  # noqa: F401
    else:
        raise ValueError(f"unknown runtime {key!r}")


def create_runner(key: str, model: str, threads: int) -> Runner:
    """Load ``model`` in runtime ``key``; raises :class:`Unavailable` with a reason."""
    backends = parse_onert_py_key(key)
    if backends is not None:
        return OnertPyRunner(model, threads, backends)
    if key in (XNNPACK, BUILTIN, XNNPACK_INVOKE, BUILTIN_INVOKE):
        return LiteRTRunner(model, threads, xnnpack=key.startswith(XNNPACK),
                            invoke_only=key.endswith(INVOKE))
    if key == ONERT:
        return OnertRunner(model, threads)
    raise ValueError(f"unknown runtime {key!r}")


def create_runners(keys: Sequence[str], model: str, threads: int,
                   veto=None) -> tuple[dict[str, Runner], dict[str, str]]:
    """({key: runner}, {key: why not}) for every runtime of ``keys`` that loads ``model``;
    ``veto(key, model)`` may refuse one first (a reason, or None)."""
    runners: dict[str, Runner] = {}
    errors: dict[str, str] = {}
    for key in keys:
        reason = veto(key, model) if veto else None
        if reason:
            errors[key] = reason
            continue
        try:
            runners[key] = create_runner(key, model, threads)
        except Exception as e:  # noqa: BLE001
            errors[key] = short_reason(e)
    return runners, errors


def library_versions() -> dict[str, str]:
    """Installed versions of the benchmarked libraries (``missing`` when absent)."""
    from importlib import metadata

    out: dict[str, str] = {}
    for dist in ("numpy", "ai-edge-litert", "onert", "onert_py", "threadpoolctl"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "missing"
    return out
