"""The Dataflow and Parallel executors: run ops as their inputs become ready.

Both follow the happens-before DAG of the subgraph's ops (core/backend/op_dag.py: an op waits
for the ops that write what it reads, and for earlier readers of what it writes).

* `DataflowExecutor` runs, in one thread, whichever op is ready, the lowest op index first.
  The order is deterministic, and the backends plan their memory for exactly that order; in a
  static execution it runs that order as native segments, like Linear.
* `ParallelExecutor` gives each backend one worker thread; the calling thread tracks the
  dependencies and hands every ready op to its backend's worker, so that ops of different
  backends run at the same time. In a static execution a chain of native ops on one backend
  that the DAG links one to one goes to the worker as one native segment (`Chains`). Memory is planned so that two tensors share bytes only when
  the DAG orders all uses of one before the other is written.

`Executor.execute()` decides whether this run goes the dynamic way and calls `_run`.
Steps folded at compile time are skipped (they count as done). Dynamic tensors are released
by the coordinating thread once all their readers have run. A failing step stops further
submissions; the in-flight ones finish, then the first error is raised.
"""
from __future__ import annotations

import queue
import threading
import weakref

import numpy as np

from ..backend.op_dag import OpDag
from .executor import Executor, Step


class _DagExecutor(Executor):
    """Shared by Dataflow and Parallel: the DAG of the steps and the dynamic-tensor counts."""

    def __init__(self, steps: list[Step], *args, **kwargs) -> None:
        super().__init__(steps, *args, **kwargs)
        self.dag = OpDag.of_steps(steps, [t.index for t in self.inputs])
        # dynamic tensors read by the steps: per step the ids it reads, per id its readers
        self._dyn_tensors: list = []
        ids: dict[int, int] = {}
        self._dyn_reads: list[tuple[int, ...]] = []
        for s in steps:
            mine: list[int] = []
            for t in s.kernel.inputs:
                if t is not None and getattr(t, "is_dynamic", False) and id(t) not in ids:
                    ids[id(t)] = len(self._dyn_tensors)
                    self._dyn_tensors.append(t)
                if t is not None and id(t) in ids and ids[id(t)] not in mine:
                    mine.append(ids[id(t)])
            self._dyn_reads.append(tuple(mine))
        self._dyn_count = [0] * len(self._dyn_tensors)
        for mine in self._dyn_reads:
            for k in mine:
                self._dyn_count[k] += 1

    def static_order(self) -> list[Step]:
        """Dataflow's order: ready steps, lowest op index first (any order the DAG allows
        is safe for Parallel's memory plan; Dataflow's is planned for this one)."""
        return [self.steps[p] for p in self.dag.ready_order()]

    def _released(self, p: int, counts: list[int]) -> None:
        """Step p has run: release the dynamic tensors it was the last reader of."""
        for k in self._dyn_reads[p]:
            counts[k] -= 1
            if not counts[k]:
                self._dyn_tensors[k].release()


class DataflowExecutor(_DagExecutor):
    """Runs whichever step is ready, lowest op index first, in the calling thread."""

    name = "Dataflow"

    def _run(self, dynamic: bool) -> None:
        steps, dyn_reads = self.steps, self._dyn_reads
        if not dynamic and not self._dyn_tensors:     # static: its fixed order, as segments
            if self._units is None:
                self._order = self.static_order()
            self.run_units(self.units(self._order))
            return
        counts = list(self._dyn_count)
        for p in self.dag.ready_order():
            self.run_step(steps[p], dynamic)
            if dyn_reads[p]:
                self._released(p, counts)


def _work(tasks: queue.SimpleQueue) -> None:
    """A backend's worker: runs tasks until it gets None. It keeps no reference to the
    executor between tasks, so an executor nobody uses any more can be collected (and its
    finalizer stops the worker)."""
    err: dict | None = None
    while True:
        task = tasks.get()
        if task is None:
            return
        run, step, dynamic, errstate, done, p = task
        task = None
        if errstate != err:     # NumPy's error state is per thread: take the caller's
            np.seterr(**errstate)
            err = errstate
        try:
            run(step, dynamic)
        except BaseException as e:     # handed to the coordinating thread, which raises it
            done.put((p, e))
        else:
            done.put((p, None))
        run = step = done = None


def _stop(queues: dict, threads: list, join: bool = False) -> None:
    for q in queues.values():
        q.put(None)
    if join:
        me = threading.current_thread()
        for t in threads:
            if t is not me:
                t.join(timeout=5.0)


class ParallelExecutor(_DagExecutor):
    """One worker thread per backend; ready steps go to their backend's worker, so steps of
    different backends overlap. Workers start on the first run, are daemon threads, and stop
    on `close()` or when the executor is collected."""

    name = "Parallel"

    def __init__(self, steps: list[Step], *args, **kwargs) -> None:
        super().__init__(steps, *args, **kwargs)
        self._backend_of = [s.backend for s in steps]
        self._backends = list(dict.fromkeys(s.backend for s in steps))
        self._queues: dict[str, queue.SimpleQueue] = {}
        self._threads: list[threading.Thread] = []
        self._finalizer: weakref.finalize | None = None

    @property
    def workers(self) -> list[threading.Thread]:
        return list(self._threads)

    def _start(self) -> None:
        self._queues = {b: queue.SimpleQueue() for b in self._backends}
        self._threads = [threading.Thread(target=_work, args=(q,), daemon=True,
                                          name=f"onert_py {self.subgraph_index}, {b}")
                         for b, q in self._queues.items()]
        for t in self._threads:
            t.start()
        self._finalizer = weakref.finalize(self, _stop, self._queues, self._threads)

    def close(self) -> None:
        """Stop the workers (a later run starts new ones)."""
        if self._finalizer is not None and self._finalizer.detach() is not None:
            _stop(self._queues, self._threads, join=True)
        self._queues, self._threads, self._finalizer = {}, [], None

    def chains(self) -> "Chains":
        """The static execution's units (built once; again after a dynamic run): each chain
        of native steps on one backend that the DAG links one to one (each the only
        successor of the one before and the only predecessor of the one after) runs as one
        Segment on that backend's worker; every other step alone."""
        if self._units is None:
            self._units = Chains(self.steps, self.dag, self._backend_of)
        return self._units

    def _run_chain(self, u: int, dynamic: bool) -> None:
        """A worker's task in a static run: unit u of `chains()`."""
        c = self._units
        seg, members = c.segments[u], c.members[u]
        if seg is None:
            self.run_step(self.steps[members[0]], False)
            return
        failed = seg.run()
        if failed >= 0:
            raise self.failure(self.steps[members[failed]], RuntimeError(seg.error))

    def _run(self, dynamic: bool) -> None:
        if not self._queues:
            self._start()
        if not dynamic and not self._dyn_tensors and self.tracer is None and self.segments:
            c = self.chains()
            self._coordinate(c.preds, c.succs, c.keys, c.backend, self._run_chain, False)
            return
        self._coordinate(self.dag.preds, self.dag.succs, self.dag.keys, self._backend_of,
                         self.run_step, dynamic, steps=self.steps)

    def _coordinate(self, preds, succs, keys, backend_of, run, dynamic: bool,
                    steps: list | None = None) -> None:
        """Hand every task (a step, or a unit of `chains()` when `steps` is None) to its
        backend's worker once its predecessors are done, lowest key first."""
        counts = list(self._dyn_count)
        waiting = [len(ps) for ps in preds]
        queues = self._queues
        errstate, done = np.geterr(), queue.SimpleQueue()
        ready = sorted((p for p, ps in enumerate(preds) if not ps), key=keys.__getitem__,
                       reverse=True)
        in_flight, error = 0, None

        def finished(p: int) -> None:
            if steps is not None and self._dyn_reads[p]:
                self._released(p, counts)
            new = []
            for c in succs[p]:
                waiting[c] -= 1
                if not waiting[c]:
                    new.append(c)
            if new:         # lowest op index last: popped first
                ready.extend(sorted(new, key=keys.__getitem__, reverse=True))

        try:
            while True:
                while ready and error is None:
                    p = ready.pop()
                    task = steps[p] if steps is not None else p
                    queues[backend_of[p]].put((run, task, dynamic, errstate, done, p))
                    in_flight += 1
                if not in_flight:
                    break
                p, exc = done.get()
                in_flight -= 1
                if exc is not None:
                    error = error or exc
                elif error is None:
                    finished(p)
        except BaseException:           # interrupted: let the submitted steps finish first
            while in_flight:
                done.get()
                in_flight -= 1
            raise
        if error is not None:
            raise error


class Chains:
    """The Parallel executor's static units: `members[u]` the step positions of unit u (in
    order), `segments[u]` its Segment (None: one Python step), `preds`/`succs` the DAG
    between units, `keys` (lowest op index first) and `backend` per unit."""

    def __init__(self, steps: list[Step], dag: OpDag, backend_of: list[str]) -> None:
        from . import native
        n = len(steps)
        native_ok = [s.kernel.native_step is not None and not s.kernel.dynamic for s in steps]
        unit_of = [-1] * n
        self.members: list[list[int]] = []
        for p in dag.ready_order():
            if unit_of[p] >= 0:
                continue
            chain = [p]
            unit_of[p] = len(self.members)
            while native_ok[chain[-1]]:
                last = chain[-1]
                nxt = dag.succs[last]
                if len(nxt) != 1:
                    break
                c = nxt[0]
                if dag.preds[c] != [last] or not native_ok[c] or unit_of[c] >= 0 \
                        or backend_of[c] != backend_of[last]:
                    break
                chain.append(c)
                unit_of[c] = len(self.members)
            self.members.append(chain)
        self.segments = [native.segment([steps[p].kernel.native_step for p in m])
                         if native_ok[m[0]] else None for m in self.members]
        self.preds = [sorted({unit_of[q] for q in dag.preds[m[0]]}) for m in self.members]
        self.succs = [sorted({unit_of[q] for q in dag.succs[m[-1]]}) for m in self.members]
        self.keys = [dag.keys[m[0]] for m in self.members]
        self.backend = [backend_of[m[0]] for m in self.members]
        self.io = None          # Executor.fast_io's answer, once asked

    @property
    def all_native(self) -> bool:
        return all(seg is not None for seg in self.segments)
