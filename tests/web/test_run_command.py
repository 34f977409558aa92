"""``python manage.py run`` as a newcomer starts it: in an empty directory, then Ctrl-C, then again.

The command runs as a subprocess in a session (and process group) of its own, on the embedded
defaults (SQLite and the filesystem broker in the temporary directory), whatever database the rest
of the suite uses. After SIGINT the whole process group must be gone: no stray gunicorn or Celery
process of that session.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
import time
from pathlib import Path

import pytest

from testkit import ManageRun, wait_for

# Upper bounds, not performance checks: a first start migrates and collects the static files, and on a
# loaded machine (the suite's other processes, a shared CI runner) that has taken over 20 s.
START_TIMEOUT = 60
STOP_TIMEOUT = 25
REAP_TIMEOUT = 5


def _python_children(pid: int) -> dict[int, str]:
    """The direct children of ``pid``: pid -> command line."""
    out = {}
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        try:
            out[int(child)] = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            pass
    return out


class Run(ManageRun):
    """``run`` as a newcomer starts it: the embedded defaults, no admin password given."""

    def __init__(self, cwd: Path, log_name: str, port: int | None = None):
        super().__init__(cwd, args=["--web-workers", "1", "--worker-concurrency", "1"], port=port, log_name=log_name)

    def output(self, chars: int | None = None) -> str:
        """The whole log unless ``chars`` is given (the staff account line is near its start)."""
        text = self.log_path.read_text(errors="replace")
        return text if chars is None else text[-chars:]

    def wait_healthy(self, timeout: float = START_TIMEOUT) -> None:
        super().wait_healthy(timeout)

    def child(self, name: str, missing_ok: bool = False) -> int | None:
        """The pid of ``run``'s child ``name`` (web: the gunicorn master; worker, analysis, beat: Celery's)."""
        needle = {"web": " -m gunicorn ", "worker": " worker ", "analysis": " -Q analysis ", "beat": " beat "}[name]
        found = [pid for pid, cmd in _python_children(self.proc.pid).items()
                 if needle in cmd and (name != "worker" or " -Q analysis " not in cmd)]
        assert found or missing_ok, f"no {name} among {_python_children(self.proc.pid)}"
        return found[0] if found else None

    def interrupt_and_wait(self) -> int:
        os.kill(self.proc.pid, signal.SIGINT)
        return self.proc.wait(timeout=STOP_TIMEOUT)


@pytest.mark.realprocess
@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_run_starts_prints_the_password_stops_cleanly_and_reuses_the_data(tmp_path):
    first = Run(tmp_path, "first.log")
    try:
        first.wait_healthy()
        out = first.output()
        assert re.search(r"created staff account 'admin' with password: \S{12,}", out), out
        assert "/api/docs/" in out and "/admin/" in out and "/health/" in out

        assert first.interrupt_and_wait() == 0, first.output()[-3000:]
        assert first.group_gone(REAP_TIMEOUT), "processes of the run command's group survived Ctrl-C"
        assert "stopped" in first.output()
    finally:
        first.kill_group()

    assert (tmp_path / "goat.sqlite3").exists() and (tmp_path / "goat-data" / "secret_key").exists()

    second = Run(tmp_path, "second.log")
    try:
        second.wait_healthy()
        out = second.output()
        assert "staff account 'admin' exists" in out
        assert "with password" not in out
        # supervision: each child killed with SIGKILL is started again, the service answers again
        for name in ("worker", "analysis", "beat", "web"):
            old = second.child(name)
            killed = time.monotonic()
            os.kill(old, signal.SIGKILL)
            deadline = time.monotonic() + START_TIMEOUT
            while f"run: {name} started again" not in second.output():
                assert time.monotonic() < deadline, f"{name} was not started again:\n{second.output()[-3000:]}"
                assert second.proc.poll() is None, f"run exited after {name} was killed:\n{second.output()[-3000:]}"
                time.sleep(0.1)
            assert f"run: {name} killed by SIGKILL; starting it again" in second.output()
            # the new child is logged once started; its command line shows once it has exec'd
            wait_for(lambda name=name, old=old: second.child(name, missing_ok=True) not in (None, old),
                     timeout=START_TIMEOUT, what=f"the new {name} process")
            print(f"{name} started again {time.monotonic() - killed:.2f}s after kill -9")
        second.wait_healthy()  # on the same port: run holds the listening socket, gunicorn inherits it
        print(f"web answers again {time.monotonic() - killed:.2f}s after kill -9")
        assert len(_python_children(second.proc.pid)) == 4  # web, worker, analysis, beat: no orphan of a killed child
        assert second.interrupt_and_wait() == 0
        assert second.group_gone(REAP_TIMEOUT)
    finally:
        second.kill_group()


@pytest.mark.realprocess
@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
def test_a_port_in_use_stops_the_start_at_once_with_the_reason(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        run = ManageRun(tmp_path, args=["--web-workers", "1"], port=port, migrated=True)
        try:
            code = run.proc.wait(timeout=START_TIMEOUT)
        finally:
            run.kill_group()
    out = run.output()
    assert code == 1, out
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in out, out
    assert "gunicorn" not in out and "goat is running" not in out, out  # no child was started
