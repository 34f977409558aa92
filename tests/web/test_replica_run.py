"""A real streaming standby under ``python manage.py run`` (goat/web/db/replica.py, docs/operations.md "A
standby for reads"): a throwaway primary (initdb) and its standby (``pg_basebackup -R``) on free ports,
the server started with DATABASE_URL and DATABASE_REPLICA_URL.

* A public page is served from the standby: with the standby's replay paused, a player created on the
  primary is not found by an anonymous visitor; once the standby is further behind than
  GOAT_REPLICA_MAX_LAG_SECONDS the same page answers from the primary (bounded staleness).
* The standby stopped: every page answers from the primary; /health/ says ``replica: false``.
* The primary stopped: the public site answers from the standby (anonymous and signed-in visitors, an
  ended game's page and API), a write answers 503 with Retry-After, /health/ says ``database: false``.
"""

from __future__ import annotations

import http.client
import sys
import time

import pytest
from games.test_streams_run import Client
from pgcluster import Cluster, unavailable_reason

from testkit import RUN_THROTTLES_OFF, ManageRun, wait_for

START_TIMEOUT = 120
MAX_LAG = 10  # seconds: long enough for the paused standby to be read first on a loaded machine

pytestmark = [
    pytest.mark.realprocess,
    pytest.mark.database,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes"),
    pytest.mark.skipif(unavailable_reason() is not None, reason=unavailable_reason() or ""),
]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """A primary, its standby and a server reading from both (one set for the module)."""
    primary = Cluster()
    standby = server = None
    try:
        standby = Cluster.standby_of(primary)
        assert standby.query("SELECT pg_is_in_recovery()") == [(True,)]
        server = ManageRun(tmp_path_factory.mktemp("replica-run"), args=["--web-workers", "1", "--no-worker"], env={
            "DATABASE_URL": primary.url, "DATABASE_REPLICA_URL": standby.url,
            "GOAT_REPLICA_MAX_LAG_SECONDS": str(MAX_LAG), "GOAT_REPLICA_CHECK_SECONDS": "0.2",
            "GOAT_ADMIN_PASSWORD": "staff-pass-123", **RUN_THROTTLES_OFF})
        server.wait_healthy(START_TIMEOUT)
        yield primary, standby, server
    finally:
        if server is not None:
            server.stop()
        if standby is not None:
            standby.destroy()
        primary.destroy()


def _has_player(cluster: Cluster, name: str) -> bool:
    return bool(cluster.query("SELECT 1 FROM auth_user WHERE username = %s", (name,)))


def _status(client: Client, path: str, token: str | None = None) -> int:
    """The status of a GET (a page or the API), its body read and dropped."""
    conn = http.client.HTTPConnection("127.0.0.1", client.run.port, timeout=30)
    try:
        conn.request("GET", path, headers={"Authorization": f"Token {token}"} if token else {})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_public_reads_come_from_the_standby_and_either_side_may_go_away(pair):
    primary, standby, server = pair
    client = Client(server)

    # --- served from the standby, within the bound -----------------------------------------------
    alpha = client.player("alpha")
    wait_for(lambda: _has_player(standby, "alpha"), timeout=30, what="the standby to replay alpha")
    standby.query("SELECT pg_wal_replay_pause()")
    paused = time.monotonic()
    beta = client.player("beta")
    assert _has_player(primary, "beta") and not _has_player(standby, "beta")
    assert _status(client, "/players/alpha/") == 200
    assert _status(client, "/players/beta/") == 404, "an anonymous page read the primary, not the standby"
    assert _status(client, "/api/players/beta/", token=beta) == 200, "a signed-in visitor reads the primary"

    # the standby falls behind the bound: the same page from the primary, the standby still without beta
    wait_for(lambda: _status(client, "/players/beta/") == 200, timeout=MAX_LAG + 60, interval=0.5,
             what="the page to go to the primary once the standby is too far behind")
    assert time.monotonic() - paused <= MAX_LAG + 60
    assert not _has_player(standby, "beta")
    status, _, health = client.call("GET", "/health/")
    assert status == 200 and health["replica"] is True and health["replica_lag_seconds"] > MAX_LAG, health
    standby.query("SELECT pg_wal_replay_resume()")
    wait_for(lambda: _has_player(standby, "beta"), timeout=30, what="the standby to catch up")

    # an ended game, on both sides
    status, _, game = client.call("POST", "/api/games/", {"ruleset": "goat-classic", "seats": 2}, alpha)
    assert status == 201, game
    assert client.call("POST", f"/api/games/{game['id']}/join/", {}, beta)[0] == 200
    status, _, ended = client.call("POST", f"/api/games/{game['id']}/resign/", {}, alpha)
    assert status == 200 and ended["status"] != "running", ended
    wait_for(lambda: standby.query("SELECT status FROM goat_game WHERE id = %s", (game["id"],))
             == [(ended["status"],)], timeout=30, what="the standby to replay the game's end")

    public = ["/", "/leaderboards/", "/tournaments/", "/players/alpha/", f"/games/{game['id']}/",
              f"/api/games/{game['id']}/", "/api/games/", "/api/leaderboards/ratings/"]

    # --- the standby stopped: everything from the primary ----------------------------------------
    standby.stop()
    for path in public:
        assert _status(client, path) == 200, path
    status, _, health = client.call("GET", "/health/")
    assert (status, health["database"], health["replica"], health["status"]) == (200, True, False, "degraded"), health
    standby.start()
    wait_for(lambda: client.call("GET", "/health/")[2].get("replica") is True, timeout=60,
             what="/health/ to see the standby again")

    # --- the primary stopped: the public site from the standby, writes 503 -------------------------
    primary.stop()
    for path in public:
        assert _status(client, path) == 200, path
    assert _status(client, f"/api/games/{game['id']}/", token=alpha) == 200  # signed in: the standby too
    status, headers, body = client.call("POST", "/api/games/", {"ruleset": "goat-classic", "seats": 2}, alpha)
    headers = {k.lower(): v for k, v in headers.items()}
    assert (status, headers["content-type"], body["code"]) == (503, "application/problem+json",
                                                               "service_unavailable"), body
    assert int(headers["retry-after"]) > 0
    status, _, health = client.call("GET", "/health/")
    assert (status, health["database"], health["replica"], health["status"]) == (200, False, True, "degraded"), health
    assert server.proc.poll() is None
