"""``manage.py run``'s supervision (goat.serve.supervisor) with real child processes: a child killed
with SIGKILL is started again, its orphaned children are stopped first, backoff doubles, a crash
loop stops everything, and ``stop`` leaves nothing behind. (The whole command under kill -9 is in
tests/web/test_run_command.py.)"""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from goat.serve.supervisor import Supervisor, become_subreaper, children_of

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and the child subreaper")



@pytest.fixture(autouse=True)
def _not_a_subreaper_afterwards():
    """The test process is a subreaper while a Supervisor lives in it; later tests' orphans must go
    to init again (a zombie left in a process group would look alive to them)."""
    yield
    become_subreaper(False)


SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]
# a parent with a child of its own (as gunicorn's master and Celery's pool): the child is orphaned
# when the parent is killed
PARENT = [sys.executable, "-c",
          "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
          " time.sleep(60)"]
FAILING = [sys.executable, "-c", "import sys; sys.exit(3)"]


def _poll_until(supervisor: Supervisor, predicate, timeout: float = 10) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        code = supervisor.poll()
        if code is not None or predicate():
            return code
        time.sleep(0.05)
    raise AssertionError("supervision did not get there in time")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_killed_child_is_started_again_and_its_orphans_are_stopped():
    lines: list[str] = []
    supervisor = Supervisor({"web": PARENT, "beat": SLEEPER}, log=lines.append, backoff_first=0.1)
    supervisor.start()
    try:
        web = supervisor.children["web"].proc
        beat = supervisor.children["beat"].proc
        _poll_until(supervisor, lambda: children_of(web.pid))
        orphan = children_of(web.pid)[0]
        os.kill(web.pid, signal.SIGKILL)
        _poll_until(supervisor, lambda: supervisor.children["web"].proc is not web)
        assert not _alive(orphan), "the killed parent's child outlived the restart"
        assert supervisor.children["web"].proc.poll() is None
        assert supervisor.children["beat"].proc is beat and beat.poll() is None  # the others untouched
        assert any("web killed by SIGKILL; starting it again in 0.1s" in line for line in lines), lines
        assert any("web started again (restart 1)" in line for line in lines), lines
    finally:
        assert supervisor.stop(5) == []
    assert all(c.proc.poll() is not None for c in supervisor.children.values())


def test_backoff_doubles_and_a_crash_loop_stops_everything():
    lines: list[str] = []
    supervisor = Supervisor({"worker": FAILING, "web": SLEEPER}, log=lines.append, max_exits=4,
                            backoff_first=0.05, backoff_max=0.2)
    assert [supervisor.backoff(n) for n in (1, 2, 3, 4, 5)] == [0.05, 0.1, 0.2, 0.2, 0.2]
    supervisor.start()
    try:
        code = _poll_until(supervisor, lambda: False)
        assert code == 3  # the failing child's own code
        assert supervisor.children["worker"].restarts == 3
        assert "a crash loop; stopping everything" in lines[-1]
        assert supervisor.children["web"].proc.poll() is None  # stopping is the caller's: below
    finally:
        supervisor.stop(5)
    assert supervisor.children["web"].proc.poll() is not None


def test_exits_older_than_the_window_do_not_count():
    clock = [0.0]
    supervisor = Supervisor({"beat": FAILING}, log=lambda line: None, max_exits=2, window=10,
                            backoff_first=0.0, clock=lambda: clock[0])
    supervisor.start()
    try:
        for _ in range(4):  # an exit every 11 s: never two within 10 s
            supervisor.children["beat"].proc.wait()
            assert supervisor.poll() is None
            clock[0] += 11
            assert supervisor.poll() is None  # started again
        assert supervisor.children["beat"].restarts == 4
    finally:
        supervisor.stop(5)
