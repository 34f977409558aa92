"""The docker-compose process set without Docker: gunicorn (gunicorn.conf.py, goat.asgi, 2 workers),
one Celery worker and one Celery beat as separate processes on PostgreSQL and Redis, configured by
environment variables as in docker-compose.yml (GOAT_ENV=production, JSON logs, the psycopg pool,
the Redis cache). A full game is played over real HTTP; then its verification, the engine CLI on
its exported events and the ratings the worker writes are checked.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

from testkit import GroupProcess, free_port, test_database_url

pytestmark = [pytest.mark.realprocess, pytest.mark.database]  # gunicorn, worker, beat on PostgreSQL + Redis

REPO = Path(__file__).resolve().parents[2]

PASSWORD = "correct horse battery staple"


class Http:
    def __init__(self, base: str):
        self.base = base

    def call(self, method: str, path: str, body=None, token: str | None = None, headers: dict | None = None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Token {token}")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                return response.status, response.headers, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, error.headers, json.loads(error.read() or b"null")


class Stack:
    """gunicorn + celery worker + celery beat, each in its own session, logs in tmp_path."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.port = free_port()
        broker = settings.CELERY_BROKER_URL
        cache = broker.rsplit("/", 1)[0] + "/15"  # another Redis database for the shared cache
        self.env = {
            **os.environ,
            "GOAT_ENV": "production",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "DATABASE_URL": test_database_url(),
            "CELERY_BROKER_URL": broker,
            "CACHE_URL": cache,
            "DB_POOL": "1",
            "GOAT_LOG_FORMAT": "json",
            "GOAT_DATA_DIR": str(tmp_path / "data"),
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "WEB_CONCURRENCY": "2",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PYTHONPATH": str(REPO),
        }
        self.procs: dict[str, GroupProcess] = {}

    def start(self, name: str, cmd: list[str]) -> None:
        self.procs[name] = GroupProcess(cmd, cwd=REPO, env=self.env, log_path=self.tmp_path / f"{name}.log")

    def log(self, name: str) -> str:
        return self.procs[name].log_path.read_text(errors="replace")

    def up(self, timeout: float = 40) -> None:
        python = sys.executable
        self.start("web", [python, "-m", "gunicorn", "--config", str(REPO / "gunicorn.conf.py"), "goat.asgi",
                           "--bind", f"127.0.0.1:{self.port}"])
        self.start("worker", [python, "-m", "celery", "-A", "goat", "worker", "--loglevel", "INFO",
                              "--concurrency", "2", "--hostname", f"stack-{os.getpid()}@%h",
                              "--without-mingle", "--without-gossip"])
        self.start("beat", [python, "-m", "celery", "-A", "goat", "beat", "--loglevel", "INFO",
                            "--schedule", str(self.tmp_path / "beat-schedule")])
        deadline = time.monotonic() + timeout
        http = Http(f"http://127.0.0.1:{self.port}")
        while time.monotonic() < deadline:
            for name, process in self.procs.items():
                assert process.proc.poll() is None, f"{name} exited early:\n{self.log(name)[-3000:]}"
            try:
                status, _, body = http.call("GET", "/health/")
                if status == 200 and "ready." in self.log("worker"):
                    return
            except OSError:
                pass
            time.sleep(0.3)
        raise AssertionError("the stack did not come up:\n" + "\n".join(self.log(n)[-2000:] for n in self.procs))

    def down(self) -> None:
        for process in self.procs.values():  # all asked at once, as compose stops a project
            process.terminate()
        for process in self.procs.values():  # killed if need be, and nothing of theirs left behind
            process.stop(timeout=25)


@pytest.fixture
def stack(transactional_db, tmp_path):
    from goat.celery import app

    app.conf.task_always_eager = False
    app.control.purge()
    running = Stack(tmp_path)
    try:
        running.up()
        yield running
    finally:
        running.down()
        app.control.purge()


def _play_to_the_end(http: Http, tokens: dict[str, str], game_id: int, limit_requests: int = 3000) -> dict:
    for _ in range(limit_requests):
        status, headers, view = http.call("GET", f"/api/games/{game_id}/", token=tokens["ship-a"])
        assert status == 200, view
        if view["status"] != "running":
            return view
        seat = view["turn"]
        player = view["seats"][seat]["player"]
        status, headers, mine = http.call("GET", f"/api/games/{game_id}/", token=tokens[player])
        assert mine["legal_moves"], mine
        move = mine["legal_moves"][0]
        body = {"tile": move["tile"], **({"end": move["end"]} if move.get("end") else {})}
        status, _, answer = http.call(
            "POST", f"/api/games/{game_id}/moves/", body, token=tokens[player],
            headers={"If-Match": headers["ETag"], "Idempotency-Key": secrets.token_hex(8)},
        )
        assert status == 201, answer
    raise AssertionError("the game did not end")


def test_a_full_game_over_http_on_the_production_process_set(stack, tmp_path, wait_for):
    http = Http(f"http://127.0.0.1:{stack.port}")
    tokens = {}
    for name in ("ship-a", "ship-b"):
        status, _, body = http.call("POST", "/api/players/", {"username": name, "password": PASSWORD})
        assert status == 201, body
        status, _, body = http.call("POST", "/api/auth/token/", {"username": name, "password": PASSWORD})
        assert status == 200, body
        tokens[name] = body["token"]

    status, headers, game = http.call("POST", "/api/games/", {"ruleset": "goat-classic", "seats": 2,
                                                              "options": {"limit": 51, "move_time": 0}},
                                      token=tokens["ship-a"], headers={"X-Request-ID": "ship-create-1"})
    assert status == 201, game
    assert headers["X-Request-ID"] == "ship-create-1"
    status, _, joined = http.call("POST", f"/api/games/{game['id']}/join/", {}, token=tokens["ship-b"])
    assert status == 200 and joined["status"] == "running", joined

    final = _play_to_the_end(http, tokens, game["id"])
    assert final["status"] == "finished" and final["result"]["reason"] == "limit"

    status, _, verified = http.call("GET", f"/api/games/{game['id']}/verify/", token=tokens["ship-a"])
    assert status == 200 and verified["hash_chain"] and verified["deals"] and verified["replay"], verified

    status, _, exported = http.call("GET", f"/api/games/{game['id']}/events/", token=tokens["ship-b"])
    assert status == 200 and exported["events"][-1]["type"] == "seed_revealed"
    log_file = tmp_path / "game.json"
    log_file.write_text(json.dumps(exported["events"]))
    proc = subprocess.run([sys.executable, "-m", "goat.engine", "verify", str(log_file)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["valid"] is True and report["result"] == final["result"]

    def ratings_written():  # by the worker, from the post-game task queued on commit
        ledger = {}
        for name in tokens:
            status, _, page = http.call("GET", f"/api/players/{name}/ratings/", token=tokens[name])
            if status != 200 or not page["results"]:
                return None
            ledger[name] = page["results"]
        return ledger

    ledger = wait_for(ratings_written, timeout=30, what="the worker to write the ratings")
    assert all(rows[0]["game"] == game["id"] for rows in ledger.values())

    # JSON logs: the access log carries the request id, the worker's records the game id
    access = [json.loads(line) for line in stack.log("web").splitlines() if line.startswith("{")]
    assert any(r.get("logger") == "gunicorn.access" and r.get("request_id") == "ship-create-1" for r in access)
    assert "beat: Starting..." in stack.log("beat")
