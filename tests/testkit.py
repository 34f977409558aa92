"""Helpers shared by the race and end-to-end tests (importable as ``testkit``: tests/ is on the path)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

from django.db import connection, connections


def run_together(count: int, work) -> list:
    """Run ``work(i)`` in ``count`` threads released at once; each thread uses and closes its own connection.

    Returns each thread's result, or the exception it raised.
    """
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def target(i):
        try:
            barrier.wait()
            results[i] = work(i)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def wait_for(predicate, *, timeout: float, interval: float = 0.2, what: str = "condition"):
    """Poll ``predicate`` until it returns something true (returned), or fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def test_database_url() -> str:
    """The URL of the test database, for processes the test starts (workers, gunicorn)."""
    db = connection.settings_dict
    user = db.get("USER") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host = db.get("HOST") or "127.0.0.1"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{user}{password}@{host}{port}/{db['NAME']}"


test_database_url.__test__ = False  # a helper, not a test


class GroupProcess:
    """A server process (gunicorn, a Celery worker) in a process group of its own, output to a log file.

    ``stop`` asks the main process to stop (SIGTERM) and kills the group if it does not within
    ``timeout``; whatever of the group outlives the main process (a pool child, the beat process of
    ``worker --beat``) is killed too, so no process of a test keeps running into the next test. An
    orphaned embedded beat once did that for 45 minutes, sending periodic tasks to later tests.
    ``kill`` is a crash of the whole group (SIGKILL).
    """

    def __init__(self, cmd: list[str], *, cwd: Path, env: dict[str, str], log_path: Path):
        self.log_path = log_path
        with open(log_path, "ab") as log:  # the child writes to its own copy of the descriptor
            self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        self._asked_to_stop = False

    @property
    def pid(self) -> int:
        return self.proc.pid

    def output(self, chars: int = 6000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:]

    def wait_http_ok(self, url: str, timeout: float) -> None:
        """Wait until ``url`` answers 200 (a server's health check); fail with the log's tail if the
        process exits first or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"exited early:\n{self.output(3000)}"
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"{url} did not answer 200 in {timeout}s:\n{self.output(3000)}")

    def group_alive(self) -> bool:
        try:
            os.killpg(self.proc.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def kill_group(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def group_gone(self, seconds: float = 5) -> bool:
        """Whether the group is gone within ``seconds`` (the kernel reaps what was still exiting)."""
        deadline = time.monotonic() + seconds
        while self.group_alive():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def kill(self) -> None:
        self.kill_group()
        self.proc.wait()
        self.group_gone()

    def terminate(self) -> None:
        """Ask the main process to stop (SIGTERM), once: ``stop`` then waits. Stopping several processes
        together: ``terminate`` each, then ``stop`` each."""
        if not self._asked_to_stop and self.proc.poll() is None:
            self.proc.terminate()
            self._asked_to_stop = True

    def stop(self, timeout: float = 20) -> None:
        if self.proc.poll() is None:
            self.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill_group()
                self.proc.wait()
        if not self.group_gone(2):  # children left behind by the main process
            self.kill_group()
            self.group_gone()
