"""PostgreSQL stopped for real under ``python manage.py run`` (issue 31): the API and the pages answer
503 ``service_unavailable`` with ``Retry-After`` as problem details, never 500; ``/health/`` says
the database is away; once PostgreSQL is back the service answers again by itself.

The test makes a throwaway cluster of its own (initdb in a temporary directory, a free port), so
stopping it disturbs nothing else; it needs PostgreSQL's server binaries (.ci/run installs them).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from games.test_streams_run import Client
from pgcluster import Cluster, unavailable_reason

from testkit import RUN_THROTTLES_OFF, ManageRun

START_TIMEOUT = 120

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes"),
    pytest.mark.skipif(unavailable_reason() is not None, reason=unavailable_reason() or ""),
    pytest.mark.realprocess,  # brings its own servers
]


class Run(ManageRun):
    def __init__(self, cwd: Path, database_url: str):
        super().__init__(cwd, args=["--web-workers", "1", "--no-worker"], env={
            "DATABASE_URL": database_url, "GOAT_ADMIN_PASSWORD": "staff-pass-123", **RUN_THROTTLES_OFF})

    def wait_healthy(self, timeout: float = START_TIMEOUT) -> None:
        super().wait_healthy(timeout)


def test_postgresql_stopped_is_503_with_retry_after_and_heals_by_itself(tmp_path):
    cluster = Cluster()
    server = None
    try:
        server = Run(tmp_path, cluster.url)
        server.wait_healthy()
        client = Client(server)
        token = client.player(f"pg{time.monotonic_ns() % 10**6}")
        status, _, game = client.call("POST", "/api/games/", {"ruleset": "goat-classic", "seats": 2}, token)
        assert status == 201

        cluster.stop()
        answers = {
            "read": client.call("GET", f"/api/games/{game['id']}/", token=token),
            "write": client.call("POST", "/api/games/", {"ruleset": "goat-classic", "seats": 2}, token),
            "page": client.call("GET", "/leaderboards/"),
            "stream": client.call("GET", f"/api/games/{game['id']}/stream/", token=token),
        }
        for what, (status, headers, body) in answers.items():
            headers = {k.lower(): v for k, v in headers.items()}
            assert status == 503, (what, status, body)
            assert headers["content-type"] == "application/problem+json", what
            assert body["code"] == "service_unavailable" and int(headers["retry-after"]) > 0, what
        status, _, health = client.call("GET", "/health/")
        assert (status, health["database"]) == (503, False)

        back = cluster.start()
        while True:
            status, _, view = client.call("GET", f"/api/games/{game['id']}/", token=token)
            if status == 200:
                break
            assert status == 503 and time.monotonic() - back < 30, (status, view)
            time.sleep(0.05)
        healed = time.monotonic() - back
        assert client.call("POST", f"/api/games/{game['id']}/leave/", {}, token)[0] == 200  # writes too
        assert server.proc.poll() is None
        print(json.dumps({"answers_again_after_postgresql_returned_s": round(healed, 3)}))
    finally:
        if server is not None:
            server.stop()
        cluster.destroy()
