"""Helpers of the live reliability tests: gunicorn and Celery processes against the test database."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

from testkit import GroupProcess, test_database_url, wait_for

REPO = Path(__file__).resolve().parents[2]


def process_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """Environment for a gunicorn or Celery process against the test database."""
    return {
        **os.environ,
        "DATABASE_URL": test_database_url(),
        "GOAT_DATA_DIR": str(tmp_path / "proc-data"),
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "GOAT_THROTTLE_USER": "100000/min",
        "GOAT_THROTTLE_ANON": "100000/min",
        "GOAT_THROTTLE_MOVES": "100000/min",
        "GOAT_THROTTLE_AUTH": "100000/min",
        "GOAT_THROTTLE_SIGNUP": "100000/min",
        **extra,
    }


class Proc(GroupProcess):
    """A gunicorn or Celery process of the live tests (testkit.GroupProcess), waiting for its log."""

    def __init__(self, cmd: list[str], env: dict[str, str], log_path: Path):
        super().__init__(cmd, cwd=REPO, env=env, log_path=log_path)

    def wait_log(self, needle: bytes, timeout: float = 40) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"process exited early:\n{self.output()}")
            if needle in self.log_path.read_bytes():
                return
            time.sleep(0.2)
        raise RuntimeError(f"{needle!r} not seen in {timeout}s:\n{self.output()}")


def gunicorn(tmp_path: Path, port: int, *, workers: int = 2, threads: int = 4, **env: str) -> Proc:
    cmd = [sys.executable, "-m", "gunicorn", "goat.asgi:application", "--bind", f"127.0.0.1:{port}",
           "--workers", str(workers), "--threads", str(threads), "--graceful-timeout", "5",
           "--config", str(REPO / "gunicorn.conf.py"), "--access-logfile", "/dev/null"]
    proc = Proc(cmd, process_env(tmp_path, **env), tmp_path / f"gunicorn-{port}.log")
    wait_for(lambda: _port_open(port), timeout=40, what=f"gunicorn on {port}")
    return proc


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def celery_worker(tmp_path: Path, *, beat: bool = False, concurrency: int = 1, **env: str) -> Proc:
    cmd = [sys.executable, "-m", "celery", "-A", "goat", "worker", "--pool", "prefork", "--concurrency",
           str(concurrency), "--loglevel", "INFO", "--hostname", f"rel-{os.getpid()}-{time.monotonic_ns()}@%h",
           "--without-mingle", "--without-gossip"]
    if beat:
        cmd += ["--beat", "--schedule", str(tmp_path / "beat-schedule")]
    proc = Proc(cmd, process_env(tmp_path, **env), tmp_path / f"celery-{time.monotonic_ns()}.log")
    proc.wait_log(b"ready.")
    return proc
