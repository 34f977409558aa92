"""Helpers shared by the race and end-to-end tests (importable as ``testkit``: tests/ is on the path)."""

from __future__ import annotations

import threading
import time

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
