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
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Upper bounds, not performance checks: a first start migrates and collects the static files, and on a
# loaded machine (the suite's other processes, a shared CI runner) that has taken over 20 s.
START_TIMEOUT = 60
STOP_TIMEOUT = 25
REAP_TIMEOUT = 5


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "GOAT_DATA_DIR", "GOAT_ADMIN_PASSWORD",
                        "CACHE_URL", "REDIS_CACHE_URL", "GOAT_ENV", "SECRET_KEY", "WEB_CONCURRENCY"}}
    env["PYTHONUNBUFFERED"] = "1"
    return env


class Run:
    def __init__(self, cwd: Path, port: int, log_name: str):
        self.cwd, self.port = cwd, port
        self.log_path = cwd / log_name
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, str(REPO / "manage.py"), "run", "--port", str(port), "--web-workers", "1",
                 "--worker-concurrency", "1"],
                cwd=cwd, env=_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        self.pgid = self.proc.pid  # a new session: the command leads its own process group

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_healthy(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"run exited early:\n{self.output()[-3000:]}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health/", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"/health/ did not answer 200 in {START_TIMEOUT}s:\n{self.output()[-3000:]}")

    def interrupt_and_wait(self) -> int:
        os.kill(self.proc.pid, signal.SIGINT)
        return self.proc.wait(timeout=STOP_TIMEOUT)

    def group_alive(self) -> bool:
        try:
            os.killpg(self.pgid, 0)
        except ProcessLookupError:
            return False
        return True

    def group_gone(self) -> bool:
        """Whether the group is gone within REAP_TIMEOUT (the kernel reaps what was still exiting)."""
        deadline = time.monotonic() + REAP_TIMEOUT
        while self.group_alive():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        return True

    def kill_group(self) -> None:
        if self.group_alive():
            os.killpg(self.pgid, signal.SIGKILL)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_run_starts_prints_the_password_stops_cleanly_and_reuses_the_data(tmp_path):
    first = Run(tmp_path, _free_port(), "first.log")
    try:
        first.wait_healthy()
        out = first.output()
        assert re.search(r"created staff account 'admin' with password: \S{12,}", out), out
        assert "/api/docs/" in out and "/admin/" in out and "/health/" in out

        assert first.interrupt_and_wait() == 0, first.output()[-3000:]
        assert first.group_gone(), "processes of the run command's group survived Ctrl-C"
        assert "stopped" in first.output()
    finally:
        first.kill_group()

    assert (tmp_path / "goat.sqlite3").exists() and (tmp_path / "goat-data" / "secret_key").exists()

    second = Run(tmp_path, _free_port(), "second.log")
    try:
        second.wait_healthy()
        out = second.output()
        assert "staff account 'admin' exists" in out
        assert "with password" not in out
        assert second.interrupt_and_wait() == 0
        assert second.group_gone()
    finally:
        second.kill_group()
