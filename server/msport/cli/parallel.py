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

    def text(self, language: str = "en") -> str:
        """What happened, in *language* (rules/messages/cli.toml)."""
        from ..knowledge.messages import message

        if self.exitcode is not None and self.exitcode < 0:
            try:
                name = signal.Signals(-self.exitcode).name
            except ValueError:
                name = str(-self.exitcode)
            return message("cli.worker_killed", language, signal=name)
        return message("cli.worker_exited", language, status=self.exitcode)

    def __str__(self) -> str:
        return self.text()


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


def run(work: Work, setup: Callable[[], Any], jobs: Sequence, workers: int, done: Callable[[int, int], None],
        pool: Optional["Pool"] = None, key: Callable[[Any], Any] = lambda job: None) -> Iterator[Tuple[int, Any]]:
    """``(index, work(setup(), job))`` for every job, in the jobs' order, each one as soon as it
    and all the jobs before it are finished; a job whose worker died gets a WorkerDied.
    *done(count, index)* is called as each job finishes, in whatever order they finish.
    *pool*: the workers of a command that runs several times over the same files (see Pool),
    which keeps them for the next run; *key(job)* names a job's file there."""
    if workers > 1 and len(jobs) >= POOL_MIN_FILES:
        if pool is None:
            pool = own = Pool(setup, workers)
        else:
            own = None
        finished = pool.results(work, jobs, key, close=own is not None)
    else:
        state = pool.state() if pool is not None else setup()
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


class Pool:
    """Worker processes for one command, kept from one run to the next (the project index's
    rounds, then the check), each file going back to the worker that had it before: that
    worker's analyzer holds the file's statements and module facts in its caches, as a single
    process's does (60 timm files: the phases in one process 2.9 -> 1.7 CPU-s). A file whose
    worker is busy elsewhere or gone goes to any other. Use as a context manager."""

    def __init__(self, setup: Callable[[], Any], workers: int):
        self.setup, self.workers = setup, workers
        self.context = multiprocessing.get_context(_start_method())
        self.running: List[_Worker] = []
        self.home: Dict[Any, _Worker] = {}  # a job's key -> the worker that had it last
        self._state: Any = None
        self._state_made = False
        self.broken = False  # a worker died in setup(): the others would too, so none is started
        # One run's work (see results()).
        self.work: Optional[Work] = None
        self.size = 1
        self.todo: Dict[Optional[_Worker], Deque[Tuple[int, Any]]] = {}
        self.key: Callable[[Any], Any] = lambda job: None

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def state(self) -> Any:
        """setup() in this process, once (a run too small for the workers)."""
        if not self._state_made:
            self._state, self._state_made = self.setup(), True
        return self._state

    def close(self) -> None:
        """The workers leave (or are stopped)."""
        for worker in self.running:
            try:
                worker.conn.send(None)
            except OSError:
                pass
        for worker in self.running:
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join()
        self.running = []
        self.home.clear()

    def _stop_all(self) -> None:
        for worker in self.running:  # interrupted (Ctrl-C) or failed: leave no process behind
            worker.process.terminate()
        for worker in self.running:
            worker.process.join()
        self.running = []
        self.home.clear()

    def results(self, work: Work, jobs: Sequence, key: Callable[[Any], Any] = lambda job: None, close: bool = False) -> Iterator[Tuple[int, Any]]:
        """(index, result) for every job, in the order they finish."""
        self.work, self.key = work, key
        self.size = max(1, min(MAX_BATCH, len(jobs) // (self.workers * 4)))
        self.todo = {None: deque()}
        for index, job in enumerate(jobs):
            home = self.home.get(key(job))
            self.todo.setdefault(home if home in self.running else None, deque()).append((index, job))
        left = len(jobs)
        complete = False
        try:
            for worker in self.running:
                if not worker.pending:
                    self._give(worker)
            while len(self.running) < self.workers and self._queued() and not self.broken:
                self._start()
            while left and self.running:
                handles = {h: w for w in self.running for h in (w.conn, w.process.sentinel)}
                # dict.fromkeys: each worker once (both its handles may be ready), in a stable order.
                for worker in dict.fromkeys(handles[h] for h in wait(list(handles))):
                    for answer in self._receive(worker):
                        left -= 1
                        yield answer
                    if worker.process.is_alive():
                        if not worker.pending:
                            self._give(worker)
                    else:
                        for answer in self._bury(worker):
                            left -= 1
                            yield answer
                        for other in self.running:  # the dead one's files, for whoever is idle
                            if not other.pending:
                                self._give(other)
            complete = True
        finally:
            if not complete or close:
                self._stop_all() if not complete else self.close()
        if self._queued():
            # No worker could even start (its error is above): do the rest here rather than fail.
            print("msport: warning: the checking processes could not start; checking in this process instead", file=sys.stderr)
            state = self.state()
            for queue in self.todo.values():
                for index, job in queue:
                    yield index, work(state, job)
            self.todo = {None: deque()}

    def _queued(self) -> bool:
        return any(self.todo.values())

    def _batch(self, worker: _Worker) -> List[Tuple[int, Any]]:
        """Up to a batch of jobs for *worker*: its own files first, then files no worker has
        had, then files of the worker with the most left (so that no core idles at the end)."""
        batch: List[Tuple[int, Any]] = []
        sources = [worker, None] + sorted((w for w in self.todo if w is not None and w is not worker), key=lambda w: -len(self.todo[w]))
        for source in sources:
            queue = self.todo.get(source)
            while queue and len(batch) < self.size:
                batch.append(queue.popleft())
            if len(batch) >= self.size:
                break
        return batch

    def _start(self) -> None:
        parent_end, child_end = self.context.Pipe()
        # A forked child inherits unwritten output buffers and would write them out again.
        sys.stdout.flush()
        sys.stderr.flush()
        process = self.context.Process(target=_serve, args=(child_end, self.setup, os.getpid()), daemon=True)
        process.start()
        child_end.close()
        self.running.append(_Worker(process, parent_end))
        self._give(self.running[-1])

    def _give(self, worker: _Worker) -> None:
        batch = self._batch(worker)
        if not batch:
            return  # idle until the next run (or close())
        try:
            worker.conn.send((self.work, batch))
        except OSError:  # it died after its last answer: the batch waits for the next worker
            self.todo[None].extendleft(reversed(batch))
            return
        worker.pending.extend(batch)
        for _, job in batch:
            name = self.key(job)
            if name is not None:
                self.home[name] = worker

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
        orphans = self.todo.pop(worker, deque())
        self.todo[None].extend(orphans)
        if not worker.ready:
            # It died in setup(), before any file: blame none. Another worker would die the same
            # way, so none is started; the live ones (or this process, at the end) take its files.
            self.broken = True
            if worker.pending:
                self.todo[None].extendleft(reversed(worker.pending))
            return
        if worker.pending:
            # Answers come in file order: the first unanswered file is the one it died on.
            yield worker.pending.popleft()[0], WorkerDied(worker.process.exitcode)
            if worker.pending:
                self.todo[None].extendleft(reversed(worker.pending))
        if self._queued():
            self._start()


#: A worker's first message: setup() went through, what follows are answers.
READY = None


def _serve(conn: Connection, setup: Callable[[], Any], parent: int) -> None:
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
        message = conn.recv()
        if message is None:
            return
        work, batch = message
        for index, job in batch:
            conn.send((index, work(state, job)))
