"""A helper's fork (graders/sandbox/forking.py): a fork that is refused leaves the helper's channel closed so the
caller goes on without it, and a helper tied to its starter dies with it, even when the starter is killed -9.
Real processes throughout."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

from graders.sandbox.forking import fork_or_close


def test_a_fork_that_succeeds_gives_the_child_and_keeps_the_channel_open() -> None:
    ours, theirs = socket.socketpair()
    pid = fork_or_close(theirs)
    if pid == 0:  # the child: say so down the channel, and go
        theirs.sendall(b"child")
        os._exit(0)
    assert pid is not None and pid > 0
    assert ours.recv(5) == b"child"
    assert os.waitpid(pid, 0)[1] == 0
    assert theirs.fileno() != -1
    ours.close()
    theirs.close()


# RLIMIT_NPROC of 1 for a user that already runs processes: the kernel refuses any fork (EAGAIN). Root ignores the
# limit, so the refusal is made by a child that gives itself an unprivileged user first, where it can.
REFUSED = textwrap.dedent("""
    import os, resource, socket, sys
    from graders.sandbox.forking import fork_or_close
    if os.geteuid() == 0:
        os.setgid(65534)
        os.setuid(65534)
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    ours, theirs = socket.socketpair()
    pid = fork_or_close(theirs, ours)
    if pid == 0:
        os._exit(0)
    print(pid, theirs.fileno(), ours.fileno())
""")


def test_a_fork_the_system_refuses_gives_none_and_closes_the_channel() -> None:
    run = subprocess.run([sys.executable, "-c", REFUSED], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["None", "-1", "-1"]


STARTER = textwrap.dedent("""
    import os, sys, time
    from graders.sandbox.forking import die_with_parent
    pid = os.fork()
    if pid == 0:
        die_with_parent()
        print(os.getpid(), flush=True)  # only once tied: a starter killed before that would leave it behind
        time.sleep(120)
        os._exit(0)
    time.sleep(120)
""")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_helper_tied_to_its_starter_dies_when_the_starter_is_killed() -> None:
    starter = subprocess.Popen([sys.executable, "-c", STARTER], stdout=subprocess.PIPE, text=True)
    try:
        helper = int(starter.stdout.readline())
        assert _alive(helper)
        starter.send_signal(signal.SIGKILL)
        starter.wait(timeout=30)
        deadline = time.monotonic() + 10
        while _alive(helper) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(helper), "the helper outlived the process that started it"
    finally:
        starter.kill()
        starter.wait()
        if _alive(helper):
            os.kill(helper, signal.SIGKILL)
