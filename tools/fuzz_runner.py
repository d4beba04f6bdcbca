"""Crash and hang isolation for the fuzzer: cases run in a worker process.

The worker (`python tools/fuzz_runner.py`) limits its address space (RLIMIT_AS) to what it
uses after start-up plus a bound, then reads cases from stdin and answers on stdout, one
length-prefixed pickle each way. Before each case it writes the case bytes to a scratch file,
so the input is known even if the worker dies. The parent (`Worker`) waits for each answer
with a timeout: a worker that dies is a "crash", one that does not answer in time a "hang";
either way it is killed and started again.

A case function is `fn(data: bytes, max_tensor_bytes: int) -> dict` with "status" "ok",
"refused" (an onert_py error; "error", "internal" = the non-onert_py cause it wraps, if any,
"msg") or "finding" ("finding": "exception" | "memory", "error", "msg").
"""
from __future__ import annotations

import os
import pickle
import resource
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


# ---------------------------------------------------------------- worker side
def _causes(e: BaseException) -> list[BaseException]:
    out = []
    while e is not None and e not in out:
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def _inputs(infos, rng, limit: int):
    import numpy as np
    total = sum(int(np.prod(i.shape, dtype=np.int64)) * i.dtype.itemsize for i in infos)
    if total > limit:
        return None
    arrays = []
    for i in infos:
        if i.dtype == np.bool_:
            arrays.append(rng.random(i.shape) < 0.5)
        elif i.dtype.kind in "iu":
            arrays.append(rng.integers(0, 2, size=i.shape).astype(i.dtype))   # valid indices
        elif i.dtype.kind in "fc":
            arrays.append(rng.standard_normal(i.shape).astype(i.dtype))
        else:
            arrays.append(np.zeros(i.shape, i.dtype))
    return arrays


WHILE_BOUND = 1000     # config max_while_iterations of every case: a loop that never ends is refused


def run_case(data: bytes, max_tensor_bytes: int) -> dict:
    """load -> compile (Session, cpu) -> run on random inputs of the declared shapes."""
    import numpy as np
    from onert_py import Session
    from onert_py.errors import OnertPyError
    stage = "load/compile"
    try:
        sess = Session(data, backends="cpu", config={"max_tensor_bytes": max_tensor_bytes,
                                                     "max_while_iterations": WHILE_BOUND})
        stage = "run"
        rng = np.random.default_rng(len(data))
        arrays = _inputs(sess.inputs, rng, max_tensor_bytes)
        if arrays is None:
            return {"status": "ok", "note": "inputs over the limit, not run"}
        sess.run(arrays)
        sess.close()
        return {"status": "ok"}
    except OnertPyError as e:
        chain = _causes(e)
        if any(isinstance(c, MemoryError) for c in chain):
            return {"status": "finding", "finding": "memory", "error": type(e).__name__,
                    "msg": f"{stage}: ran out of the address-space bound (MemoryError wrapped "
                           f"in {type(e).__name__}): {e}"}
        internal = next((c for c in chain if not isinstance(c, OnertPyError)), None)
        return {"status": "refused", "error": type(e).__name__, "stage": stage,
                "internal": None if internal is None else type(internal).__name__,
                "msg": str(e)[:500]}
    except Exception as e:     # noqa: BLE001 - anything else is what the fuzzer looks for
        kind = "memory" if isinstance(e, MemoryError) else "exception"
        return {"status": "finding", "finding": kind, "error": type(e).__name__,
                "msg": f"{stage}: " + "".join(traceback.format_exception(e))[-3000:]}


def selftest_case(data: bytes, max_tensor_bytes: int) -> dict:
    """Misbehaving cases, to check the isolation: the bytes name what to do."""
    import ctypes
    what = data.decode()
    if what == "abort":
        os.abort()
    if what == "segv":
        ctypes.string_at(0)
    if what == "sleep":
        time.sleep(3600)
    if what == "alloc":            # touch 1 GiB more than the bound allows
        block = bytearray(4 << 30)
        return {"status": "ok", "size": len(block)}
    if what == "raise":
        raise KeyError("not an onert_py error")
    if what == "exit":
        os._exit(3)
    return {"status": "ok"}


def _print_stack(signum, frame) -> None:
    """SIGUSR1 from the parent when a case is late: where the worker is (between bytecodes)."""
    sys.stderr.write("Stack of the late case:\n" + "".join(traceback.format_stack(frame)))
    sys.stderr.flush()


def _vm_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _send(stream, obj) -> None:
    blob = pickle.dumps(obj)
    stream.write(struct.pack("<Q", len(blob)) + blob)
    stream.flush()


def _recv(stream):
    head = stream.read(8)
    if len(head) < 8:
        return None
    (n,) = struct.unpack("<Q", head)
    return pickle.loads(stream.read(n))


def worker_main(mem_bytes: int, scratch: str, runner: str) -> None:
    import faulthandler
    import warnings
    faulthandler.enable()            # a fatal signal prints the stack to stderr
    signal.signal(signal.SIGUSR1, _print_stack)
    warnings.simplefilter("ignore")
    sys.path[:0] = [REPO, HERE]
    fn = {"model": run_case, "selftest": selftest_case}[runner]
    if runner == "model":
        import importlib         # imported before the limit: the bound is for the cases
        importlib.import_module("onert_py.backends.cpu.libbackend_cpu")
    limit = _vm_bytes() + mem_bytes
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr            # prints of the code under test stay off the channel
    _send(out, {"ready": True})
    while True:
        case = _recv(inp)
        if case is None:
            return
        with open(scratch, "wb") as f:
            f.write(case["data"])
        try:
            result = fn(case["data"], case["max_tensor_bytes"])
        except Exception as e:     # noqa: BLE001 - a case function that raises is a finding
            result = {"status": "finding", "error": type(e).__name__,
                      "finding": "memory" if isinstance(e, MemoryError) else "exception",
                      "msg": "".join(traceback.format_exception(e))[-3000:]}
        _send(out, result)


# ---------------------------------------------------------------- parent side
class Worker:
    """A worker process that runs cases one at a time; restarted after a crash or hang."""

    def __init__(self, runner: str = "model", mem_bytes: int = 2 << 30,
                 startup_timeout: float = 120.0) -> None:
        self.runner, self.mem_bytes, self.startup_timeout = runner, mem_bytes, startup_timeout
        fd, self.scratch = tempfile.mkstemp(prefix="onert_fuzz_case_")
        os.close(fd)
        self.log = tempfile.TemporaryFile()
        self.proc: subprocess.Popen | None = None
        self.restarts = 0

    def start(self) -> None:
        self.log.seek(0)
        self.log.truncate()
        self.proc = subprocess.Popen(
            [sys.executable, "-u", os.path.abspath(__file__), str(self.mem_bytes), self.scratch,
             self.runner], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            cwd=REPO)
        hello = self._read(self.startup_timeout)
        if not isinstance(hello, dict) or not hello.get("ready"):
            self.stop()
            raise RuntimeError(f"fuzz worker did not start: {self._stderr()}")

    def _read(self, timeout: float):
        """One frame from the worker; None if it died, "timeout" if it took too long."""
        deadline = time.monotonic() + timeout
        head = self._read_exact(8, deadline)
        if not isinstance(head, bytes):
            return head
        body = self._read_exact(struct.unpack("<Q", head)[0], deadline)
        return pickle.loads(body) if isinstance(body, bytes) else body

    def _read_exact(self, n: int, deadline: float):
        fd, buf = self.proc.stdout.fileno(), b""
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, n - len(buf))
                if not chunk:
                    return None
                buf += chunk
        return buf

    def _stderr(self) -> str:
        self.log.seek(0)
        return self.log.read()[-4000:].decode("utf-8", "replace")

    def run(self, data: bytes, max_tensor_bytes: int, timeout: float) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        try:
            _send(self.proc.stdin, {"data": data, "max_tensor_bytes": max_tensor_bytes})
            got = self._read(timeout)
        except (BrokenPipeError, OSError):
            got = None
        if isinstance(got, dict):
            return got
        if got == "timeout":       # ask for the stack (SIGUSR1), then kill
            self.proc.send_signal(signal.SIGUSR1)
            time.sleep(1.0)
            self.stop()
            stack = self._stderr()
            return {"status": "finding", "finding": "hang",
                    "msg": f"no answer within {timeout:.0f} s; the worker was killed. "
                           f"Its stack:\n{stack}"}
        code = self.proc.wait()
        how = (f"killed by signal {signal.Signals(-code).name}" if code < 0
               else f"exited with status {code}")
        msg = f"the worker {how}:\n{self._stderr()}"
        self.stop()
        return {"status": "finding", "finding": "crash", "msg": msg}

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            for s in (self.proc.stdin, self.proc.stdout):
                s.close()
            self.proc = None
            self.restarts += 1

    def close(self) -> None:
        self.stop()
        self.log.close()
        if os.path.exists(self.scratch):
            os.unlink(self.scratch)

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    worker_main(int(sys.argv[1]), sys.argv[2], sys.argv[3])
