"""Faults heal by themselves (issue 31), against the real ``python manage.py run`` with a Redis of
the test's own (broker, cache and live channel), restarted for real: shut down without saving, as a
crash loses its data, and started again on the same port.

While Redis is down the game path keeps working (reads, moves, a resign, a stream opened then,
``/health/`` 200 with ``broker: false``); once it is back every open stream catches up from the
database (the game streams gap-free, no event twice, closed after the end; the feed gets the end
of the game it missed), a command committed right after the return reaches its streams, the
per-token stream slots hold again (the claims are written back), and the worker and beat time a
game out through the restarted broker.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from games.test_streams_run import Client, Stream

from testkit import RUN_THROTTLES_OFF, ManageRun, free_port, wait_for

START_TIMEOUT = 90
PER_TOKEN = 2
REDIS_SERVER = shutil.which("redis-server")
pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX"),
    pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server (.ci/run installs it)"),
    pytest.mark.realprocess,  # brings its own servers
]


class RedisServer:
    """A redis-server of this test alone (no persistence: a restart loses everything, as a crash)."""

    def __init__(self, directory: Path):
        self.port = free_port()
        self.directory = directory
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> float:
        """Start it; returns the monotonic time at which it answered PING."""
        assert REDIS_SERVER is not None
        log = open(self.directory / "redis.log", "ab")  # noqa: SIM115 - the child keeps its own copy
        self.proc = subprocess.Popen([REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", str(self.directory)],
                                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.ping():
                return time.monotonic()
            time.sleep(0.02)
        raise AssertionError("redis-server did not start")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """SIGKILL: whatever it held is gone, every client's connection is cut."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


class Run(ManageRun):
    def __init__(self, cwd: Path, redis_port: int):
        redis = f"redis://127.0.0.1:{redis_port}"
        super().__init__(cwd, args=["--web-workers", "2", "--worker-concurrency", "1"], migrated=True, env={
            "CELERY_BROKER_URL": f"{redis}/0", "CACHE_URL": f"{redis}/1", "GOAT_STREAMS_PER_TOKEN": str(PER_TOKEN),
            "GOAT_STREAM_KEEPALIVE_SECONDS": "1", "GOAT_ADMIN_PASSWORD": "staff-pass-123", **RUN_THROTTLES_OFF})

    def wait_healthy(self, timeout: float = START_TIMEOUT) -> None:
        super().wait_healthy(timeout)


def _game(client: Client, token: str, options=None) -> int:
    status, _, view = client.call("POST", "/api/games/", {"ruleset": "goat-classic", "seats": 2,
                                                         "options": options or {}}, token)
    assert status == 201, view
    return view["id"]


def _move(client: Client, game_id: int, tokens: list[str]) -> int:
    """The player to move plays their first legal move; returns the new version."""
    _, _, view = client.call("GET", f"/api/games/{game_id}/", token=tokens[0])
    token = tokens[view["turn"]]
    _, _, view = client.call("GET", f"/api/games/{game_id}/", token=token)
    status, _, body = client.call("POST", f"/api/games/{game_id}/moves/", view["legal_moves"][0], token)
    assert status == 201, body
    return body["version"] if "version" in body else body["game"]["version"]


def _gap_free(stream: Stream, first: int, last: int) -> None:
    seqs = [e["seq"] for e in stream.events()]
    assert seqs == list(range(first, last + 1)), seqs
    ids = [m[2] for m in stream.messages if m[2] is not None]
    assert ids == sorted(set(ids)), ids  # no update twice


def test_a_redis_restart_loses_no_live_update_and_redis_is_off_the_game_path(tmp_path):
    redis = RedisServer(tmp_path)
    server = Run(tmp_path, redis.port)
    try:
        server.wait_healthy()
        client = Client(server)
        suffix = time.monotonic_ns() % 10**6
        a, b, c = (client.player(f"{name}{suffix}") for name in ("ra", "rb", "rc"))
        g1 = _game(client, a)
        assert client.call("POST", f"/api/games/{g1}/join/", {}, b)[0] == 200
        g2 = _game(client, c, {"move_time": 3})  # started after the restart: the clock must still run
        stream_a = Stream(server, f"/api/games/{g1}/stream/", a)
        feed_b = Stream(server, "/api/stream/", b, ndjson=True)
        stream_c = Stream(server, f"/api/games/{g2}/stream/", c)
        feed_c = Stream(server, "/api/stream/", c, ndjson=True)
        start = stream_a.wait(lambda m: m[1] == "state")[3]["version"]
        feed_b.wait(lambda m: m[1] == "hello")
        stream_c.wait(lambda m: m[1] == "state")
        feed_c.wait(lambda m: m[1] == "hello")
        refused = Stream(server, "/api/stream/", c)
        assert refused.status == 429  # c holds its PER_TOKEN slots

        redis.stop()
        # Redis down: reads, moves, a resign, a new stream and /health/ still work
        status, _, health = client.call("GET", "/health/")
        assert (status, health["database"], health["broker"]) == (200, True, False), health
        assert client.call("GET", f"/api/games/{g1}/", token=a)[0] == 200
        _move(client, g1, [a, b])
        late = Stream(server, f"/api/games/{g1}/stream/", b)  # opened while Redis is down
        assert late.status == 200
        late.wait(lambda m: m[1] == "state")
        status, _, ended = client.call("POST", f"/api/games/{g1}/resign/", None, a)
        assert status == 200, ended
        final = client.call("GET", f"/api/games/{g1}/", token=a)[2]["version"]

        back = redis.start()
        # a command right after the return (the join starts g2) reaches its open stream
        assert client.call("POST", f"/api/games/{g2}/join/", {}, a)[0] == 200
        joined = time.monotonic()
        for stream in (stream_a, late):
            stream.wait(lambda m: m[1] == "update" and m[3]["version"] == final, timeout=15,
                        what="the update of the resign committed while Redis was down")
            assert stream.closed.wait(10), "a stream stayed open after its game ended"
        caught_up = stream_a.messages[-1][0] - back
        _gap_free(stream_a, start + 1, final)
        feed_b.wait(lambda m: m[1] == "game_ended" and m[3]["game"] == g1, what="the missed game_ended")
        assert [m[1] for m in feed_b.messages].count("game_ended") == 1
        stream_c.wait(lambda m: m[1] == "update" and m[3]["game"]["status"] == "running", timeout=15,
                      what="the join committed right after Redis returned")
        # the slots of c's open streams are written back into the restarted Redis (each web process
        # does it once its subscription is back, off its event loop): c's next stream is refused again

        def refused_again() -> bool:
            extra = Stream(server, "/api/stream/", c)
            if extra.status == 429:
                return True
            extra.close()
            return False

        wait_for(refused_again, timeout=15, interval=0.5, what="the stream slots written back into Redis")
        # the worker and beat reconnected: the clock times g2 out through the restarted broker
        timed_out = stream_c.wait(lambda m: m[1] == "update" and any(e["type"] == "timed_out"
                                                                    for e in m[3]["events"]),
                                  timeout=40, what="the timeout of g2 by the clock")
        assert stream_c.closed.wait(10)
        feed_c.wait(lambda m: m[1] == "game_ended" and m[3]["game"] == g2)
        status, _, health = client.call("GET", "/health/")
        assert (status, health) == (200, {"status": "ok", "database": True, "broker": True})
        assert server.proc.poll() is None, "run stopped"
        print(json.dumps({"streams_caught_up_after_redis_returned_s": round(caught_up, 3),
                          "clock_timeout_late_by_s": round(timed_out[0] - joined - 3, 3)}))
        for stream in (feed_b, feed_c):
            stream.close()
    finally:
        server.stop()
        redis.stop()
