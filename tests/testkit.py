"""Helpers shared by the race and end-to-end tests (importable as ``testkit``: tests/ is on the path)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

from django.db import connection, connections

from bench._common import free_port  # noqa: F401 - the tests' servers take their ports from here too


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
    """The URL of the test database, for processes the test starts (workers, gunicorn): the test
    database's file on SQLite (goat.settings names one per test process), its server on PostgreSQL."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
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
    ``kill`` is a crash of the whole group (SIGKILL). ``running`` holds every one started and not known
    to be gone before the current test (tests/conftest.py prunes it as each test starts): a failing
    test's report carries their logs' tails, of a server it killed as well as of one still running.
    """

    running: ClassVar[list[GroupProcess]] = []

    def __init__(self, cmd: list[str], *, cwd: Path, env: dict[str, str], log_path: Path):
        self.log_path = log_path
        self.name = " ".join(Path(part).name if i < 2 else part for i, part in enumerate(cmd[:4]))[:80]
        with open(log_path, "ab") as log:  # the child writes to its own copy of the descriptor
            self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        self._asked_to_stop = False
        GroupProcess.running.append(self)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def output(self, chars: int = 6000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:]

    def printed_port(self, pattern: str, *, since: int = 0, timeout: float = 90) -> int:
        """The port a server started on port 0 names in its log (``pattern``'s first group), waiting up to
        ``timeout`` s; ``since``: the log offset its output starts at. Port 0 because a port picked here and
        bound later could be taken in between by another test's server, which would then answer."""
        def printed() -> int | None:
            assert self.proc.poll() is None, f"exited early:\n{self.output(3000)}"
            found = re.search(pattern, self.log_path.read_text(errors="replace")[since:])
            return int(found.group(1)) if found else None

        return wait_for(printed, timeout=timeout, what=f"the port in {self.log_path.name}")

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


REPO = Path(__file__).resolve().parents[1]

#: the settings a test's ``manage.py run`` never takes from the test run's own environment: its
#: database, broker, cache and data directory are the embedded defaults in its own directory unless the
#: test names them, and its secret key, environment and processes are its own
RUN_ENV_DROPPED = frozenset({"DATABASE_URL", "DATABASE_REPLICA_URL", "DATABASE_POOLER", "CELERY_BROKER_URL",
                             "GOAT_DATA_DIR", "CACHE_URL", "REDIS_CACHE_URL", "GOAT_ENV", "SECRET_KEY",
                             "WEB_CONCURRENCY", "GOAT_LIVE_URL", "GOAT_ADMIN_PASSWORD", "GOAT_RATES_PATH"})

#: throttles a test's server does not reach: the tests measure behaviour, not the rate limits
RUN_THROTTLES_OFF = {"GOAT_THROTTLE_USER": "100000/min", "GOAT_THROTTLE_MOVES": "100000/min",
                     "GOAT_THROTTLE_ANON": "10000/min", "GOAT_THROTTLE_SIGNUP": "10000/min",
                     "GOAT_THROTTLE_AUTH": "10000/min", "GOAT_THROTTLE_PAGES": "100000/min"}


_MIGRATED: dict[str, Path] = {}


def migrated_sqlite() -> Path:
    """An embedded-defaults database with every migration applied, made once per test process (``manage.py
    migrate`` in a directory of its own): a server started on a copy of it skips the migrations' work,
    which is most of a start's CPU on SQLite. The copy is then migrated again by ``run`` (nothing left)."""
    if "path" not in _MIGRATED:
        directory = Path(tempfile.mkdtemp(prefix="goat-migrated-"))
        environ = {k: v for k, v in os.environ.items() if k not in RUN_ENV_DROPPED}
        subprocess.run([sys.executable, str(REPO / "manage.py"), "migrate", "--verbosity", "0"], cwd=directory,
                       env={**environ, "GOAT_DATA_DIR": str(directory / "goat-data")}, check=True, timeout=300)
        _MIGRATED["path"] = directory / "goat.sqlite3"
    return _MIGRATED["path"]


class ManageRun(GroupProcess):
    """``python manage.py run`` as an operator starts it, in ``cwd`` on a free port (or ``port``).

    Its environment is the test run's without ``RUN_ENV_DROPPED`` and ``drop``, plus ``env``;
    ``args`` go after ``run --port N`` (``--web-workers``, ``--no-worker`` ...). ``migrated``: start on a
    copy of ``migrated_sqlite()`` (for a test about what runs, not about a first start).

    Without ``port`` it runs with ``--port 0`` and ``port`` is the one its printed URLs name
    (``printed_port``)."""

    def __init__(self, cwd: Path, *, args: list[str], env: dict[str, str] | None = None,
                 drop: frozenset[str] | set[str] = frozenset(), port: int | None = None, host: str | None = None,
                 log_name: str = "run.log", migrated: bool = False):
        if migrated and not (cwd / "goat.sqlite3").exists():
            shutil.copyfile(migrated_sqlite(), cwd / "goat.sqlite3")
        self._port = port
        environ = {k: v for k, v in os.environ.items() if k not in RUN_ENV_DROPPED | set(drop)}
        environ.update({"PYTHONUNBUFFERED": "1", **(env or {})})
        cmd = [sys.executable, str(REPO / "manage.py"), "run", *(["--host", host] if host else []),
               "--port", str(port or 0), *args]
        log_path = cwd / log_name
        self._log_start = log_path.stat().st_size if log_path.exists() else 0  # a second start appends
        super().__init__(cmd, cwd=cwd, env=environ, log_path=log_path)

    @property
    def port(self) -> int:
        """The port it listens on (read from its printed URLs, waiting for them up to 90 s)."""
        if self._port is None:
            self._port = self.printed_port(r"health +http://[^\s/]+:(\d+)/health/", since=self._log_start)
        return self._port

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_healthy(self, timeout: float = 90) -> None:
        self.wait_http_ok(f"{self.base}/health/", timeout)


@contextmanager
def gunicorn_site(tmp_path: Path, env: dict[str, str] | None = None) -> Iterator[SimpleNamespace]:
    """gunicorn (one of goat's uvicorn workers, so the streams stream) serving goat.asgi on the test
    database, with ``env`` over this process's environment: ``SimpleNamespace(url, web)`` while it runs."""
    environ = {**os.environ, "DATABASE_URL": test_database_url(), "GOAT_DATA_DIR": str(tmp_path / "web-data"),
               "PYTHONPATH": str(REPO), **(env or {})}
    web = GroupProcess([sys.executable, "-m", "gunicorn", "--config", str(REPO / "gunicorn.conf.py"), "goat.asgi",
                        "--bind", "127.0.0.1:0", "--workers", "1"],
                       cwd=REPO, env=environ, log_path=tmp_path / "web.log")
    try:
        port = web.printed_port(r"Listening at: http://127\.0\.0\.1:(\d+)", timeout=40)
        web.wait_http_ok(f"http://127.0.0.1:{port}/health/", timeout=40)
        yield SimpleNamespace(url=f"http://127.0.0.1:{port}", web=web)
    finally:
        web.stop()
