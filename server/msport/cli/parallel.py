"""Checking many files on every core: a pool of worker processes that answers file by file.

Why not ``concurrent.futures.ProcessPoolExecutor``: when one of its workers dies, every pending
future fails and nothing says which file killed it. Here each worker takes a batch of jobs and
sends back one answer per file, so the parent always knows the file a dead worker was on: that
file is reported, the rest of its batch goes back in the queue, and a new worker takes over.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from contextlib import closing
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Deque, Dict, Iterator, List, Optional, Sequence, Tuple

from .. import gc_tuning

#: Below this many files, run in-process. Two forked workers cost ~15 ms to start and answer
#: (12 three-line files: 6 ms in-process, 21 ms with the pool), and each misses the chunks the
#: other already parsed. Measured on 2 idle cores with timm files: 4 files (618 lines) 45 ms
#: in-process vs 40 ms pooled, 8 files (1,489 lines) 128 vs 93 ms. Under 8 files the pool saves
#: a few ms on typical files and loses more on small ones.
POOL_MIN_FILES = 8

#: Most files handed to a worker at once. Answers come back file by file whatever the batch,
#: so batches only save messages; small ones keep the cores evenly busy until the last file.
MAX_BATCH = 8

Work = Callable[[Any, Any], Any]  # (the worker's state, one job) -> that job's result


@dataclass(frozen=True)
class WorkerDied:
    """The result of the file a worker process died on (a crash in C code, the OOM killer...)."""

    exitcode: Optional[int]

    def __str__(self) -> str:
        if self.exitcode is not None and self.exitcode < 0:
            try:
                how = f"was killed by {signal.Signals(-self.exitcode).name}"
            except ValueError:
                how = f"was killed by signal {-self.exitcode}"
        else:
            how = f"exited with status {self.exitcode}"
        return f"the checking process {how} while checking it; the other files were checked"


def tune_gc_for_batch() -> None:
    """The collector's settings for a batch (msport.gc_tuning), before the workers fork, so
    they inherit them."""
    gc_tuning.tune()


def usable_cpus() -> int:
    """The CPUs this process may run on (a container or `taskset` may allow fewer than exist)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run(work: Work, setup: Callable[[], Any], jobs: Sequence, workers: int, done: Callable[[int, int], None]) -> Iterator[Tuple[int, Any]]:
    """``(index, work(setup(), job))`` for every job, in the jobs' order, each one as soon as it
    and all the jobs before it are finished; a job whose worker died gets a WorkerDied.
    *done(count, index)* is called as each job finishes, in whatever order they finish."""
    if workers > 1 and len(jobs) >= POOL_MIN_FILES:
        finished = _Pool(work, setup, jobs, workers).results()
    else:
        state = setup()
        finished = ((index, work(state, job)) for index, job in enumerate(jobs))
    waiting: Dict[int, Any] = {}
    next_index = 0
    with closing(finished):  # stopped early (Ctrl-C while printing): the workers stop now
        for count, (index, result) in enumerate(finished, 1):
            done(count, index)
            waiting[index] = result
            while next_index in waiting:
                yield next_index, waiting.pop(next_index)
                next_index += 1


def _start_method() -> str:
    # fork starts a worker in milliseconds, already holding the loaded knowledge base; spawn and
    # forkserver start a fresh interpreter that imports msport and loads it again (~0.3 s each).
    # fork is unsafe only when other threads exist (one may hold a lock the child then never
    # sees released), and the command line has none; elsewhere (macOS system libraries, an
    # embedding program with threads) spawn is the safe choice.
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


@dataclass(eq=False)  # compared and hashed by identity
class _Worker:
    process: Any
    conn: Connection
    ready: bool = False  # its setup() went through
    pending: Deque[Tuple[int, Any]] = field(default_factory=deque)  # sent, not yet answered


class _Pool:
    def __init__(self, work: Work, setup: Callable[[], Any], jobs: Sequence, workers: int):
        self.work, self.setup, self.workers = work, setup, workers
        self.context = multiprocessing.get_context(_start_method())
        size = max(1, min(MAX_BATCH, len(jobs) // (workers * 4)))
        self.queue: Deque[List[Tuple[int, Any]]] = deque(
            [(i, jobs[i]) for i in range(start, min(start + size, len(jobs)))] for start in range(0, len(jobs), size)
        )
        self.running: List[_Worker] = []

    def results(self) -> Iterator[Tuple[int, Any]]:
        """(index, result) for every job, in the order they finish."""
        try:
            for _ in range(min(self.workers, len(self.queue))):
                self._start()
            while self.running:
                handles = {h: w for w in self.running for h in (w.conn, w.process.sentinel)}
                # dict.fromkeys: each worker once (both its handles may be ready), in a stable order.
                for worker in dict.fromkeys(handles[h] for h in wait(list(handles))):
                    yield from self._receive(worker)
                    if worker.process.is_alive():
                        if not worker.pending:
                            self._give(worker)
                    else:
                        yield from self._bury(worker)
        finally:
            for worker in self.running:  # interrupted (Ctrl-C) or failed: leave no process behind
                worker.process.terminate()
            for worker in self.running:
                worker.process.join()
        if self.queue:
            # No worker could even start (its error is above): do the rest here rather than fail.
            print("msport: warning: the checking processes could not start; checking in this process instead", file=sys.stderr)
            state = self.setup()
            for batch in self.queue:
                for index, job in batch:
                    yield index, self.work(state, job)

    def _start(self) -> None:
        parent_end, child_end = self.context.Pipe()
        # A forked child inherits unwritten output buffers and would write them out again.
        sys.stdout.flush()
        sys.stderr.flush()
        process = self.context.Process(target=_serve, args=(child_end, self.work, self.setup, os.getpid()), daemon=True)
        process.start()
        child_end.close()
        self.running.append(_Worker(process, parent_end))
        self._give(self.running[-1])

    def _give(self, worker: _Worker) -> None:
        batch = self.queue.popleft() if self.queue else None
        try:
            worker.conn.send(batch)  # None: nothing left, the worker exits
        except OSError:  # it died after its last answer: the batch waits for the next worker
            if batch is not None:
                self.queue.appendleft(batch)
            return
        if batch is None:
            self.running.remove(worker)
            worker.process.join()
        else:
            worker.pending.extend(batch)

    def _receive(self, worker: _Worker) -> List[Tuple[int, Any]]:
        answers = []
        while worker.pending:
            try:
                if not worker.conn.poll():
                    break
                answer = worker.conn.recv()
            except (EOFError, OSError):  # the worker is gone; its sentinel tells the rest
                break
            if answer is READY:
                worker.ready = True
            else:
                worker.pending.popleft()
                answers.append(answer)
        return answers

    def _bury(self, worker: _Worker) -> Iterator[Tuple[int, Any]]:
        worker.process.join()
        self.running.remove(worker)
        if not worker.ready:
            # It died in setup(), before any file: blame none. Another worker would die the same
            # way, so none is started; the live ones (or this process, at the end) take its files.
            if worker.pending:
                self.queue.appendleft(list(worker.pending))
            return
        if worker.pending:
            # Answers come in file order: the first unanswered file is the one it died on.
            yield worker.pending.popleft()[0], WorkerDied(worker.process.exitcode)
            if worker.pending:
                self.queue.appendleft(list(worker.pending))
        if self.queue:
            self._start()


#: A worker's first message: setup() went through, what follows are answers.
READY = None


def _serve(conn: Connection, work: Work, setup: Callable[[], Any], parent: int) -> None:
    # Ctrl-C reaches every process of the terminal's process group: the parent alone decides
    # what happens (it stops the workers and says how far it got), so workers print nothing.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    state = setup()
    conn.send(READY)
    while True:
        # Other workers may hold copies of this pipe's far end, so a killed parent does not
        # always close it: check now and then that the parent is still there.
        while not conn.poll(1.0):
            if os.getppid() != parent:
                return
        batch = conn.recv()
        if batch is None:
            return
        for index, job in batch:
            conn.send((index, work(state, job)))
