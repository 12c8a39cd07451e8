"""The run before's loads and requests, sent to a submission's worker ahead of the checks that make them.

In a run that waits for each answer before it judges it, the grader and the worker take turns, and
one of the two is always idle. A student's own run keeps the requests its checks made of each module,
module after module (graders/engine/request_plans.py). The next run's `RunAhead` sends that plan to
the worker a share of the socket's buffer at a time: each module's load, then its requests, then the
next module's load. So the worker computes the next answers, and imports the next module, while the
grader judges the last ones.

The plan only ever decides when the worker computes, never what. A lease takes an answer from what
went ahead only when its request is the very next entry, byte for byte; the first time the checks do
otherwise (a request the run before did not make, a module started out of turn, an exercise that ends
sooner), the plan does not hold there: the worker, which may have run what went ahead, is stopped, the
module goes on in a fresh one without a plan (shared.Lease asks it again what the checks asked so far),
and what other modules had sent ahead goes again later, to the next worker.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path

from graders.sandbox.process import Outcome, Worker, load_request
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
        self.sent: deque[_Sent] = deque()  # went ahead, in order, not yet taken
        self.sent_bytes = 0
        self.to: Worker | None = None  # the worker they went to
        # Whether the worker's module got exactly what the plan holds so far: only then may more of it go ahead.
        self.following = False

    def take(self, worker: Worker, module: str, entry: bytes) -> int | None:
        """The request number under which `entry` of `module` went to `worker`, when it is the plan's next entry;
        None when the plan does not hold here, and then nothing that went ahead is left running and the rest of
        this module's entries are dropped. A module's load picks the plan up again at its place in it."""
        if self.sent and (worker is not self.to or not worker.alive or self._next() != (module, entry)):
            self._call_back()
        if entry == LOAD and (module, LOAD) in self.queue:
            while self.queue[0] != (module, LOAD):  # modules the run before graded here and this one does not (yet)
                self.queue.popleft()
            self.following = True
        if not self.sent and self.following and self.queue and self.queue[0] == (module, entry):
            self.send(worker)
        if self.sent and self._next() == (module, entry) and worker is self.to:
            taken = self.sent.popleft()
            self.sent_bytes -= taken.counted
            return taken.number
        self.abandon(module)
        return None

    def send(self, worker: Worker) -> None:
        """Top up what went ahead, in one write, once at most half of the room ahead is taken."""
        if not self.following or not self.queue or not worker.alive or self.sent and worker is not self.to:
            return
        room = worker.send_buffer // SHARE
        if self.sent_bytes > room // 2:
            return
        batch: list[tuple[str, bytes, bytes]] = []
        while self.queue:
            module, entry = self.queue[0]
            body = entry or pack(load_request(self.folder / f"{module}.py"))
            if (self.sent or batch) and self.sent_bytes + len(body) + OVERHEAD > room:
                break
            self.queue.popleft()
            batch.append((module, entry, body))
            self.sent_bytes += len(body) + OVERHEAD
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
            self.following = True
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
