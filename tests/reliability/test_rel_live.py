"""Live reliability (PostgreSQL + Redis): real gunicorn and Celery processes.

- SIGKILL a gunicorn worker while clients post moves over HTTP (retrying a dropped request with the
  same Idempotency-Key): no partial event batch, every game replays complete, the games go on.
- SIGKILL the Celery worker in the middle of post-game processing, restart it: every ended game
  has exactly one rating entry per player, chip balances equal their ledgers.
- Load: 50 bot games over HTTP keep-alive against gunicorn (2 workers, threads) + PostgreSQL + Redis
  + a Celery worker with beat for GOAT_LOAD_SECONDS (default 20): no 5xx, no connection error, every
  game verifies afterwards; p50/p99 move latency printed (docs/reliability.md records a run).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import statistics
import threading
import time
import uuid
from pathlib import Path

import pytest
from django.db.models import Count
from rel_processes import celery_worker, gunicorn, wait_for
from rest_framework.authtoken.models import Token

from goat import engine
from goat.engine.tiles import tile_str
from goat.games import eventstore, services, verification
from goat.games.models import Game, GameEvent
from testkit import free_port

pytestmark = [pytest.mark.realprocess, pytest.mark.database, pytest.mark.django_db(transaction=True)]

LOAD_SECONDS = float(os.environ.get("GOAT_LOAD_SECONDS", "20"))
RETRYABLE = (ConnectionError, http.client.HTTPException, OSError)


class Http:
    """One keep-alive connection, kept and reopened as an HTTP client library does.

    The server closes a kept-alive connection after its keep-alive timeout, and a stopping worker
    (recycled after GUNICORN_MAX_REQUESTS, or killed) closes those it holds; a close can cross a
    request on its way. A request that fails on a reused connection is sent once more on a new one,
    as HTTP clients do (RFC 9112 9.3.1); that is safe because the bots' POSTs carry an
    Idempotency-Key. `stale` counts those. A failure on a new connection is raised to the caller.
    """

    def __init__(self, port: int, token: str | None = None):
        self.port, self.token, self.conn = port, token, None
        self.stale = 0

    def request(self, method: str, path: str, body=None, headers=None, token: str | None = None):
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        if token or self.token:
            all_headers["Authorization"] = f"Token {token or self.token}"
        payload = json.dumps(body) if body is not None else None
        while True:
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            reused = self.conn.sock is not None  # http.client drops the socket after "Connection: close"
            try:
                self.conn.request(method, path, body=payload, headers=all_headers)
                response = self.conn.getresponse()
                data = response.read()
            except RETRYABLE:
                self.conn.close()
                self.conn = None
                if reused:
                    self.stale += 1
                    continue
                raise
            return response.status, (json.loads(data) if data else None)


class Bot:
    """Plays games between its two players over HTTP until told to stop; records what happened."""

    def __init__(self, port: int, tokens: list[str], *, retry_drops: bool):
        self.http = Http(port)
        self.tokens = tokens
        self.retry_drops = retry_drops
        self.latencies: list[float] = []
        self.errors: list = []
        self.dropped = 0
        self.games: list[int] = []
        self.moves = 0

    def call(self, method, path, body=None, *, seat: int, key: bool = False):
        headers = {"Idempotency-Key": uuid.uuid4().hex} if key else {}
        for _attempt in range(60):
            try:
                status, data = self.http.request(method, path, body, headers, token=self.tokens[seat])
            except RETRYABLE as exc:
                self.dropped += 1
                if not self.retry_drops:
                    self.errors.append(("connection", path, repr(exc)))
                    raise
                time.sleep(0.2)
                continue
            if status == 409 and data and data.get("code") == "request_in_progress":
                time.sleep(0.5)  # a claim left by a killed worker: taken over once stale
                continue
            if status >= 500:
                self.errors.append((status, path, data))
            return status, data
        raise AssertionError(f"gave up on {method} {path}")

    def new_game(self) -> dict:
        status, view = self.call("POST", "/api/games/", {"ruleset": "goat-classic", "seats": 2,
                                                         "options": {"limit": 31}}, seat=0, key=True)
        assert status == 201, view
        self.games.append(view["id"])
        status, view = self.call("POST", f"/api/games/{view['id']}/join/", {}, seat=1, key=True)
        assert status == 200, view
        return view

    def run(self, stop: threading.Event) -> None:
        try:
            view = self.new_game()
            while not stop.is_set():
                if view["status"] != "running":
                    view = self.new_game()
                    continue
                seat = view["turn"]
                if view.get("your_seat") != seat or not view["legal_moves"]:
                    status, view = self.call("GET", f"/api/games/{view['id']}/", seat=seat)
                    assert status == 200, view
                    continue
                move = view["legal_moves"][self.moves % len(view["legal_moves"])]
                started = time.perf_counter()
                status, body = self.call("POST", f"/api/games/{view['id']}/moves/", move, seat=seat, key=True)
                self.latencies.append(time.perf_counter() - started)
                if status == 201:
                    self.moves += 1
                    view = body["game"]
                else:  # e.g. the retried move raced the clock: reload and go on
                    status, view = self.call("GET", f"/api/games/{view['id']}/", seat=seat)
        except Exception as exc:  # noqa: BLE001 - reported by the test
            self.errors.append(("exception", repr(exc)))


def make_bots(django_user_model, port: int, count: int, *, retry_drops: bool) -> list[Bot]:
    bots = []
    for i in range(count):
        pair = [django_user_model.objects.create_user(username=f"bot{i}{side}", password="pw-" * 4)
                for side in "ab"]
        bots.append(Bot(port, [Token.objects.get_or_create(user=u)[0].key for u in pair], retry_drops=retry_drops))
    return bots


def run_bots(bots: list[Bot], seconds: float, during=None, until=None, longest: float | None = None) -> None:
    """The bots play for ``seconds``; with ``until``, on until it holds (``longest`` seconds in all at
    most), for what a slower machine takes longer to reach."""
    stop = threading.Event()
    threads = [threading.Thread(target=bot.run, args=(stop,), daemon=True) for bot in bots]
    try:
        for thread in threads:
            thread.start()
        if during:
            during()
        time.sleep(seconds)
        deadline = time.monotonic() + max(0.0, (longest or seconds) - seconds)
        while until is not None and not until() and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)


def assert_every_game_sound(game_ids) -> dict:
    counts = {"ended": 0, "running": 0}
    for game in Game.objects.filter(pk__in=list(game_ids)):
        events = list(GameEvent.objects.filter(game=game).order_by("seq"))
        assert [e.seq for e in events] == list(range(1, game.version + 1)), game.pk
        assert eventstore.hash_chain_check(events)[0], game.pk
        dicts = [eventstore.event_dict(e) for e in events]
        result = engine.replay(dicts, server_seed=game.server_seed, require_complete=True)
        assert result.ok, (game.pk, result.seq, result.code, result.detail)
        if game.ended:
            report = verification.game_verify(game=game)
            assert report.ok, (game.pk, report)
            counts["ended"] += 1
        else:
            assert result.state.version == game.version
            counts["running"] += 1
    return counts


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def client_connections(pid: int, port: int) -> int:
    """How many established TCP connections on ``port`` the process ``pid`` holds (from /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()  # sl, local address, remote address, state, ..., inode (10th)
            if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == port and fields[9] in inodes:
                count += 1
    return count


@pytest.fixture
def no_eager(transactional_db):
    from goat.celery import app

    app.conf.task_always_eager = False
    app.control.purge()
    yield app
    app.control.purge()


def test_killing_a_gunicorn_worker_mid_moves_leaves_no_partial_batch(django_user_model, tmp_path, no_eager):
    port = free_port()
    server = gunicorn(tmp_path, port, workers=2, threads=4, GOAT_IDEMPOTENCY_STALE_SECONDS="2")
    try:
        bots = make_bots(django_user_model, port, 8, retry_drops=True)
        killed = []
        moves_at_kill = {}

        def kill_one():
            time.sleep(4)
            moves_at_kill.update({id(b): b.moves for b in bots})
            workers = children_of(server.pid)
            assert len(workers) == 2, workers
            # the worker serving the most bots (one worker may hold every connection), once one holds
            # any: on a loaded machine a sample can fall where every bot is between connections
            deadline = time.monotonic() + 10
            while True:
                held, victim = max((client_connections(pid, port), pid) for pid in workers)
                if held or time.monotonic() > deadline:
                    break
                time.sleep(0.02)
            os.kill(victim, signal.SIGKILL)
            killed.append((victim, held))

        run_bots(bots, 8, during=kill_one)
        assert killed and killed[0][1] > 0, killed
        assert not [e for b in bots for e in b.errors], [e for b in bots for e in b.errors][:5]
        # the kill cut requests off: each was retried (same Idempotency-Key) and answered
        assert sum(b.dropped + b.http.stale for b in bots) > 0
        # the games went on after the kill
        assert sum(b.moves for b in bots) > sum(moves_at_kill.values()) + 20
        assert all(b.moves > moves_at_kill[id(b)] for b in bots)
        counts = assert_every_game_sound({g for b in bots for g in b.games})
        print(f"gunicorn SIGKILL: the worker held {killed[0][1]} of 8 bots' connections; "
              f"{sum(b.dropped for b in bots)} dropped requests retried, "
              f"{sum(b.http.stale for b in bots)} resent after a dropped keep-alive connection, "
              f"{sum(b.moves for b in bots)} moves, {counts}")
    finally:
        server.stop()


def test_a_recycled_worker_answers_a_request_on_its_kept_alive_connection(tmp_path, transactional_db):
    """A worker stopping after GUNICORN_MAX_REQUESTS keeps its kept-alive connections for up to 2 s
    and answers a request on one with "Connection: close" (gunicorn 27.0.1, benoitc/gunicorn#3821).
    gunicorn 23's gthread worker closed them as it exited and the request was lost: the load test
    below failed in CI with connection resets once a worker reached its 10,000 +- 1,000 requests."""
    port = free_port()
    server = gunicorn(tmp_path, port, workers=1, threads=2,
                      GUNICORN_MAX_REQUESTS="2", GUNICORN_MAX_REQUESTS_JITTER="0")
    kept = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    other = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        kept.request("GET", "/health/")
        first = kept.getresponse()
        first.read()
        assert first.status == 200 and first.getheader("Connection") != "close"
        other.request("GET", "/health/")  # the worker's second request: it stops after this one
        last = other.getresponse()
        last.read()
        assert last.status == 200 and last.getheader("Connection") == "close"
        time.sleep(1.0)  # the stopping worker's loop has exited (gunicorn 23 would have closed `kept`)
        kept.request("GET", "/health/")
        answer = kept.getresponse()
        answer.read()
        assert answer.status == 200
        assert answer.getheader("Connection") == "close"
        wait_for(lambda: server.output().count("Booting worker with pid") >= 2, timeout=40,
                 what="the replacement worker")
        kept.request("GET", "/health/")  # http.client reconnects after "Connection: close"
        assert kept.getresponse().status == 200
    finally:
        kept.close()
        other.close()
        server.stop()


def test_a_recycled_worker_ends_its_streams_spread_out_and_the_next_worker_serves_them(tmp_path, transactional_db):
    """A worker that reaches GUNICORN_MAX_REQUESTS ends its open streams over
    GOAT_RECYCLE_SPREAD_SECONDS (here 2 s), not all in one moment, so that their reopenings do not
    reach the other workers all at once (docs/capacity.md)."""
    from types import SimpleNamespace

    from games.test_streams_run import Client, Stream

    port = free_port()
    # uvicorn counts a request toward the limit when its response completes: open streams do not count
    server = gunicorn(tmp_path, port, workers=1, threads=2, GUNICORN_MAX_REQUESTS="6",
                      GUNICORN_MAX_REQUESTS_JITTER="0", GOAT_RECYCLE_SPREAD_SECONDS="2")
    run = SimpleNamespace(port=port)
    streams: list = []
    try:
        client = Client(run)
        token = client.player("recycled")  # requests 1 and 2
        streams = [Stream(run, "/api/stream/", token, ndjson=True) for _ in range(8)]
        assert all(stream.status == 200 for stream in streams)
        ended: dict[int, float] = {}
        for _ in range(4):  # 3 to 6: the worker stops after the last
            assert client.call("GET", "/health/")[0] == 200
        deadline = time.monotonic() + 30
        while len(ended) < len(streams) and time.monotonic() < deadline:
            ended.update({i: time.monotonic() for i, stream in enumerate(streams)
                          if i not in ended and stream.closed.is_set()})
            time.sleep(0.02)
        assert len(ended) == len(streams), server.output()
        spread = max(ended.values()) - min(ended.values())
        assert spread >= 1.0, f"the streams ended within {spread:.2f} s"
        wait_for(lambda: server.output().count("Booting worker with pid") >= 2, timeout=40,
                 what="the replacement worker")
        again = Stream(run, "/api/stream/", token, ndjson=True)
        streams.append(again)
        assert again.status == 200
        assert "Traceback" not in server.output() and "WORKER TIMEOUT" not in server.output()
    finally:
        for stream in streams:
            stream.conn.close()
        server.stop()


def play_ended_games(users, count: int) -> list[int]:
    import random

    rng = random.Random(5)
    ids = []
    for _ in range(count):
        game = services.game_create(player=users[0], ruleset="goat-classic", seats=2, options={"limit": 31}).game
        services.game_join(game_id=game.pk, player=users[1])
        while True:
            game = Game.objects.get(pk=game.pk)
            state = eventstore.state_load(game)
            if state.ended:
                break
            tile, end = rng.choice(engine.legal_moves(state))
            services.game_play_tile(game_id=game.pk, player=users[state.turn], tile=tile_str(tile), end=end)
        ids.append(game.pk)
    return ids


def test_killing_the_celery_worker_mid_ratings_applies_each_game_exactly_once(django_user_model, tmp_path, no_eager):
    from ratings.models import ChipAccount, ChipLedgerEntry, RatingEntry

    users = [django_user_model.objects.create_user(username=f"rk{i}", password="pw-" * 4) for i in range(2)]
    ended = play_ended_games(users, 40)  # their projections_apply_game tasks wait in Redis
    assert not RatingEntry.objects.exists()
    env = {"GOAT_BROKER_VISIBILITY_TIMEOUT": "3", "GOAT_PROJECTIONS_CATCH_UP_SECONDS": "2"}
    worker = celery_worker(tmp_path, **env)
    try:
        wait_for(lambda: RatingEntry.objects.exists(), timeout=60, interval=0.02, what="the first rating entry")
        worker.kill()  # SIGKILL, mid-way
        applied_at_kill = RatingEntry.objects.values("game").distinct().count()
    finally:
        worker.stop()
    assert applied_at_kill < len(ended), "the worker finished before it could be killed"
    worker = celery_worker(tmp_path, beat=True, **env)  # redelivery after 3 s, and the beat catch-up
    try:
        try:
            wait_for(lambda: RatingEntry.objects.values("game").distinct().count() == len(ended), timeout=90,
                     what="every ended game rated")
        except AssertionError as exc:
            rated = set(RatingEntry.objects.values_list("game_id", flat=True))
            raise AssertionError(f"{exc}; unrated games {sorted(set(ended) - rated)}; worker log:\n"
                                 f"{worker.output()}") from None
        time.sleep(4)  # any late redelivery must not add a second entry
    finally:
        worker.stop()
    per_game = RatingEntry.objects.values("game", "player").annotate(n=Count("id"))
    assert all(row["n"] == 1 for row in per_game)
    assert RatingEntry.objects.count() == 2 * len(ended)
    # every ratings projection tracked every game exactly once (the unique constraint allows no more)
    from goat.games.models import ProjectionRecord
    from ratings.models import LeaderboardRow
    from ratings.services import PROJECTIONS

    tracked = ProjectionRecord.objects.filter(game_id__in=ended, projection__in=PROJECTIONS)
    assert tracked.count() == len(PROJECTIONS) * len(ended)
    assert {row.games for row in LeaderboardRow.objects.filter(board="ratings:all:*")} == {len(ended)}
    for account in ChipAccount.objects.all():
        ledger = sum(ChipLedgerEntry.objects.filter(player=account.player).values_list("amount", flat=True))
        assert account.balance == ledger, account.player
    print(f"celery SIGKILL: {applied_at_kill} of {len(ended)} games rated at the kill; all exactly once after restart")


def _sessions_opened() -> int:
    """Connections ever opened to the test database (PostgreSQL's count, as of now)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return int(cursor.fetchone()[0])


@pytest.mark.parametrize("pool", ["", "1"])
def test_a_worker_keeps_its_database_connection_from_task_to_task(django_user_model, tmp_path, no_eager, pool):
    """Celery's Django fixup closes every connection around each task (and, with DB_POOL, the pool):
    a PostgreSQL connection opened per task. goat's worker keeps them, checked between tasks as Django
    checks them between requests (goat.celery), so 30 games' projection tasks open a handful."""
    from ratings.models import RatingEntry

    users = [django_user_model.objects.create_user(username=f"kc{i}", password="pw-" * 4) for i in range(2)]
    ended = play_ended_games(users, 30)  # their projections_apply_game tasks wait in Redis
    before = _sessions_opened()
    worker = celery_worker(tmp_path, DB_POOL=pool)
    try:
        wait_for(lambda: RatingEntry.objects.values("game").distinct().count() == len(ended), timeout=60,
                 what="every ended game rated")
    finally:
        worker.stop()
    # a backend's count reaches the statistics within a second, and at its exit
    time.sleep(1.5)
    opened = _sessions_opened() - before
    assert opened <= 8, f"{opened} connections for {len(ended)} tasks"
    print(f"worker: {opened} connections opened for {len(ended)} tasks (DB_POOL={pool or 'off'})")


def test_fifty_bot_games_under_load_no_errors_and_every_game_verifies(django_user_model, tmp_path, no_eager):
    port = free_port()
    env = {"CACHE_URL": os.environ.get("CELERY_BROKER_URL", "")}
    # production recycles a worker after 100,000 +- 10,000 requests; a run this short must see it too
    # (500 +- 100 for 20 s: a few recycles in the run)
    max_requests = max(100, int(LOAD_SECONDS * 25))
    recycle = {"GUNICORN_MAX_REQUESTS": str(max_requests), "GUNICORN_MAX_REQUESTS_JITTER": str(max_requests // 5)}
    server = gunicorn(tmp_path, port, workers=2, threads=8, **env, **recycle)
    worker = celery_worker(tmp_path, beat=True, **env)
    try:
        bots = make_bots(django_user_model, port, 50, retry_drops=False)

        def recycled() -> int:  # each recycled worker is replaced: a boot beyond the first two
            return server.log_path.read_text(errors="replace").count("Booting worker with pid") - 2

        started = time.monotonic()
        # a loaded machine serves fewer requests in LOAD_SECONDS: play on until a worker is recycled
        run_bots(bots, LOAD_SECONDS, until=recycled, longest=LOAD_SECONDS * 4)
        elapsed = time.monotonic() - started
    finally:
        server.stop()
        worker.stop()
    errors = [e for b in bots for e in b.errors]
    assert not errors, errors[:5]
    server_log = server.log_path.read_text(errors="replace")
    assert recycled(), "no worker was recycled: the run did not test it"
    for trouble in ("Traceback", "WORKER TIMEOUT", "was sent SIGKILL", "exited with code"):
        assert trouble not in server_log, server.output()
    stale = sum(b.http.stale for b in bots)
    latencies = sorted(t for b in bots for t in b.latencies)
    assert len(latencies) > 100
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(len(latencies) * 0.99)] * 1000
    counts = assert_every_game_sound({g for b in bots for g in b.games})
    print(f"load: 50 bots for {elapsed:.0f} s: {len(latencies)} moves ({len(latencies) / elapsed:.0f}/s), "
          f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, games {counts}, 0 errors; workers recycled {recycled()} times, "
          f"{stale} requests resent after a dropped keep-alive connection")
