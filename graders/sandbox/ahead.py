"""The run before's loads and requests, sent to a submission's worker ahead of the checks that make them.

In a run that waits for each answer before it judges it, the grader and the worker take turns, and
one of the two is always idle. A student's own run keeps the requests its checks made of each module,
module after module (graders/engine/request_plans.py). The next run's `RunAhead` sends that plan to
the worker a share of the socket's buffer at a time: a module's load and its requests, then, once that
exercise is done, the next module's. So the worker computes the next answers while the grader judges
the last ones, and imports the next module while the grader sets up the next exercise.

The plan decides when the worker computes, not what. A lease takes an answer from what went ahead only
when its request is the very next entry, byte for byte. Where the checks do otherwise (a request the run
before did not make, a module started out of turn), the plan no longer holds for that module: if
anything had gone ahead, the worker, which may have run it, is stopped and the module goes on in a fresh
one, asked again what its checks asked so far (shared.Lease); from there its requests wait for their
answers. What an exercise that ended sooner than its plan left ahead is called back in the same way,
and the next module picks up its own plan in a fresh worker. A load or a call sent ahead is judged by
its own time against its limit, which the worker measures (it began before it was waited for).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path

from graders.sandbox.outcome import Outcome
from graders.sandbox.process import Worker, load_request
from graders.sandbox.wire import pack

LOAD = b""  # a plan's entry that loads its module (a packed request is never empty)
# Unanswered entries ahead: at most this share of the socket's buffer (~200 KiB on Linux), each one counted with
# OVERHEAD more bytes than its own for the kernel's bookkeeping (~770 bytes a write, measured; an entry goes in a
# write of its own at worst), so that no write ever waits for the worker to read: a worker that waits to send an
# answer the grader does not read yet, and a grader that waits to write, would hold each other until a time limit.
SHARE = 2
OVERHEAD = 1024

Entry = tuple[str, bytes]  # (module name, LOAD or a packed request)


@dataclass(frozen=True)
class _Sent:
    module: str
    entry: bytes
    number: int  # the worker's request number for it
    counted: int  # what it counts against the room ahead


class RunAhead:
    """One submission folder's plan, and what of it went ahead to the folder's worker."""

    def __init__(self, plans: dict[str, list[bytes]], folder: Path) -> None:
        self.folder = folder
        self.queue: deque[Entry] = deque((module, entry) for module, requests in plans.items()
                                         for entry in (LOAD, *requests))
        self.sent: deque[_Sent] = deque()  # went ahead, in order, not yet taken: all of `current`'s
        self.sent_bytes = 0
        self.to: Worker | None = None  # the worker they went to
        self.current: str | None = None  # the module whose entries go ahead now
        # Whether that module got exactly what the plan holds so far: only then may more of it go ahead.
        self.following = False

    def take(self, worker: Worker, module: str, entry: bytes) -> int | None:
        """The request number under which `entry` of `module` went to `worker`, when it is the plan's next entry;
        None when the plan does not hold here, and then nothing that went ahead is left running and the rest of
        this module's entries are dropped. A module's load picks the plan up again at its place in it."""
        if self.sent and (worker is not self.to or not worker.alive or self._next() != (module, entry)):
            self._call_back()
        if entry == LOAD and not self.sent and (module, LOAD) in self.queue:
            while self.queue[0] != (module, LOAD):  # modules the run before graded here and this one does not
                self.queue.popleft()
            self.current, self.following = module, True
        if not self.sent and self.following and self.queue and self.queue[0] == (module, entry):
            self.send(worker)
        if self.sent and self._next() == (module, entry) and worker is self.to:
            taken = self.sent.popleft()
            self.sent_bytes -= taken.counted
            return taken.number
        self.abandon(module)
        return None

    def release(self, worker: Worker | None, module: str) -> None:
        """`module`'s exercise is done with the worker. What went ahead for it and was not taken is called back
        (an exercise that ended sooner than its plan), the rest of its entries dropped; and the next module's
        load and requests go ahead to `worker` now, while the grader finishes with this one and sets up the next."""
        if self.current == module:
            self._call_back()
        while self.queue and self.queue[0][0] == module:
            self.queue.popleft()
        self.current, self.following = None, False
        if worker is not None and worker.alive and self.queue and self.queue[0][1] == LOAD:
            self.current, self.following = self.queue[0][0], True
            self.send(worker)

    def send(self, worker: Worker) -> None:
        """Top up what went ahead of the current module, in one write, once at most half of the room ahead is
        taken. Never beyond the module: the next one's load goes when this exercise is done (`release`), so that a
        request the run before did not make finds the module still loaded."""
        if not self.following or not self.queue or worker.ready is None or not worker.alive \
                or self.sent and worker is not self.to:
            return
        room = worker.send_buffer // SHARE
        if self.sent_bytes > room // 2:
            return
        batch: list[tuple[str, bytes, bytes]] = []
        while self.queue and self.queue[0][0] == self.current:
            module, entry = self.queue[0]
            if entry == LOAD and (self.sent or batch):
                break  # a module's load only ever comes first: after it, its requests
            body = entry or pack(load_request(self.folder / f"{module}.py"))
            if (self.sent or batch) and self.sent_bytes + len(body) + OVERHEAD > room:
                break
            self.queue.popleft()
            batch.append((module, entry, body))
            self.sent_bytes += len(body) + OVERHEAD
        if not batch:
            return
        numbers = worker.send([body for _, _, body in batch])
        if isinstance(numbers, Outcome):  # the worker is gone: the next entry taken finds out
            self.queue.extendleft((module, entry) for module, entry, _ in reversed(batch))
            self.sent_bytes -= sum(len(body) + OVERHEAD for _, _, body in batch)
            return
        self.to = worker
        self.sent.extend(_Sent(module, entry, number, len(body) + OVERHEAD)
                         for (module, entry, body), number in zip(batch, numbers))

    def abandon(self, module: str, keep_requests: bool = False) -> None:
        """The plan does not hold for `module` here: nothing that went ahead is left running, and `module`'s own
        entries are dropped (but for its requests, with `keep_requests`: a module about to load again in a
        fresh worker, to go on with its plan)."""
        self._call_back()
        self.queue = deque((m, e) for m, e in self.queue if m != module or keep_requests and e != LOAD)
        self.following = False

    def resume(self, worker: Worker, module: str) -> None:
        """`module` was just loaded in `worker` without the plan: when its requests come next, they go ahead again."""
        if not self.sent and self.queue and self.queue[0][0] == module and self.queue[0][1] != LOAD:
            self.current, self.following = module, True
            self.send(worker)

    def _next(self) -> Entry:
        return self.sent[0].module, self.sent[0].entry

    def _call_back(self) -> None:
        """Stop the worker that was sent what is not taken yet (it may have run it); it goes ahead again later."""
        if not self.sent:
            return
        if self.to is not None and self.to.alive:
            self.to.stop()
        self.queue.extendleft((s.module, s.entry) for s in reversed(self.sent))
        self.sent.clear()
        self.sent_bytes = 0
        self.following = False
