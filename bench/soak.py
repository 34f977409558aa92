"""Capacity with people, not a flood: simulated players at tables against ``python manage.py run``.

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://... \\
        python bench/soak.py [--steps 100,200,400,800,1600] [--step-seconds 120] [--warmup-seconds 20] [--json]

Starts ``manage.py run`` (gunicorn with uvicorn workers, a Celery worker and a beat) in a scratch
directory on the configured database and broker, then for each step of concurrent players: seats
them at 2- to 4-seat tables (a fixed-seed mix), each player keeps its game stream and its feed open,
plays from its game stream alone (it moves when the stream says it is its turn, after thinking
2-8 s, uniform, fixed seed), and when a game ends every player of the table asks for the rematch
and the table plays on. A small share of turns (``--away``, 2%) the player is away past the move
clock, so the ticker times it out (that is where the ticker's lateness comes from). Players are
added on top of the previous step's; each step warms up, then is measured for ``--step-seconds``.

Per step: move latency p50/p99 (the POST of a move, by the client), stream delivery p99 (from the
mover's 201 to each stream showing that version, 0 when the stream was first; and from the mover's
send to each stream showing it, the move's own time included: one clock, the client's), errors (any
answer that is not the expected one, a stream that broke), the streams the server ended before their
game did (a web worker recycled by ``max_requests``: the player opens them again, as the site does),
the ticker's lateness p99 (from ``/metrics``), the client's own collector pauses (the longest and
their sum: the standing players are frozen out of them at each step's start), the RSS of the web and
the worker processes at the step's start and end, and per move: web CPU (with the processes recycled
during the step), worker CPU, PostgreSQL CPU, the client's CPU (apart), WAL bytes, rows written,
event bytes, Redis commands and PUBLISHes, stream messages delivered; with ``--replica-url`` (a
streaming standby of the primary) the server reads from it and each step reports its replay lag
(p50/p99/max, sampled every 0.5 s by the router's own measure) and the transactions it served. The
steps stop after the first whose move p99 passes ``--p99-ms`` (100). "Players per 2 cores" is the
largest step with p99 <= 100 ms, no error and RSS growth <= 5% over the step. docs/capacity.md has
the method and the figures.

The client runs in this process (one asyncio loop, HTTP/1.1 by hand: keep-alive for the API,
chunked NDJSON for the streams) on the same machine as the server, so its CPU is taken from the
server's: on a dedicated load machine the same step reads better, not worse.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO, emit, free_port, percentile  # noqa: E402

# --- a minimal HTTP/1.1 client -------------------------------------------------------------------


class Http:
    """One keep-alive connection; requests one at a time."""

    #: a connection idle this long is replaced before a request (the server's keep-alive is 5 s: a
    #: request sent as it closes the connection would be lost)
    IDLE_SECONDS = 4.0

    def __init__(self, port: int):
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.used = 0.0

    async def _connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def call(self, method: str, path: str, body=None, token: str | None = None,
                   headers: dict | None = None) -> tuple[int, dict, object]:
        if self.writer is not None and time.monotonic() - self.used > self.IDLE_SECONDS:
            self.close()
            self.writer = None
        for attempt in (1, 2):
            if self.writer is None:
                await self._connect()
            try:
                return await self._call(method, path, body, token, headers)
            except (ConnectionError, asyncio.IncompleteReadError):
                self.writer = None  # an idle kept-alive connection the server closed: once more
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _call(self, method, path, body, token, headers):
        raw = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", "Host: localhost", "Content-Type: application/json",
                 f"Content-Length: {len(raw)}"]
        if token:
            lines.append(f"Authorization: Token {token}")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        assert self.writer is not None and self.reader is not None
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + raw)
        await self.writer.drain()
        status, head = await _read_head(self.reader)
        if head.get("transfer-encoding") == "chunked":
            data = b"".join([chunk async for chunk in _chunks(self.reader)])
        else:
            data = await self.reader.readexactly(int(head.get("content-length", "0")))
        if head.get("connection") == "close":
            self.writer.close()
            self.writer = None
        self.used = time.monotonic()
        return status, head, json.loads(data) if data else None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict]:
    status_line = await reader.readuntil(b"\r\n")
    if not status_line.strip():
        raise ConnectionError("closed")
    status = int(status_line.split()[1])
    head = {}
    while True:
        line = await reader.readuntil(b"\r\n")
        if line == b"\r\n":
            return status, head
        name, _, value = line.decode().partition(":")
        head[name.strip().lower()] = value.strip()


async def _chunks(reader: asyncio.StreamReader):
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return
        chunk = await reader.readexactly(size)
        await reader.readexactly(2)
        yield chunk


async def stream_lines(port: int, path: str, token: str):
    """The NDJSON messages of a stream, as dicts (keep-alive blank lines skipped), until it ends."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write((f"GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept: application/x-ndjson\r\n"
                      f"Authorization: Token {token}\r\n\r\n").encode())
        await writer.drain()
        status, head = await _read_head(reader)
        if status != 200:
            raise RuntimeError(f"stream {path}: {status}")
        buffer = b""
        async for chunk in _chunks(reader):
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.strip():
                    yield json.loads(line)
    finally:
        writer.close()


# --- the load generator's own collector ----------------------------------------------------------------


class ClientPauses:
    """The pauses of this process's garbage collector (``gc.callbacks``): while one runs, no simulated
    player sends, reads or measures, and what it delays lands on the server afterwards as a burst. A
    step starts with the standing population (players, tables, streams) collected and frozen
    (``gc.freeze``), so that a collection during the step scans only what the step made; the step
    reports the longest pause and the time spent in them, so a figure the client caused can be told
    apart from the server's."""

    def __init__(self):
        self.pauses_ms: list[float] = []
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses_ms.append((time.perf_counter() - self._started) * 1000)

    def settle(self) -> None:
        """Collect and freeze what stands now, and start counting."""
        gc.collect()
        gc.freeze()
        self.pauses_ms = []

    def figures(self) -> dict[str, float]:
        pauses = self.pauses_ms
        return {"client_gc_max_ms": round(max(pauses, default=0.0), 1),
                "client_gc_total_ms": round(sum(pauses), 1)}


# --- the players -----------------------------------------------------------------------------------


def _forget_before(book: dict, cutoff: float, since) -> None:
    """Drop the entries of ``book`` whose time (``since(value)``) is before ``cutoff``, oldest first:
    entries are added in time order, so the dict's insertion order is theirs. The newest is kept."""
    while len(book) > 1 and since(book[oldest := next(iter(book))]) < cutoff:
        del book[oldest]


@dataclass
class Stats:
    move_ms: list[float] = field(default_factory=list)
    delivery_ms: list[float] = field(default_factory=list)
    #: from the mover's send to a stream showing the move (the move's own time included)
    to_stream_ms: list[float] = field(default_factory=list)
    #: game -> (when its move in flight was sent, the version it was sent at)
    inflight: dict[int, tuple[float, int]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    moves: int = 0
    stream_messages: int = 0
    #: streams the server ended before their game did (a web worker recycled), opened again
    reopened: int = 0
    games_ended: int = 0
    #: (game, version) -> when the mover had its 201
    committed: dict[tuple[int, int], float] = field(default_factory=dict)
    #: (game, version) -> when streams showed it before the mover had its 201
    early: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    measuring: bool = False

    #: how long a committed version is remembered for the streams that show it late
    KEEP_SECONDS = 60.0

    def shown(self, key: tuple[int, int]) -> None:
        """A stream shows version ``key[1]`` of game ``key[0]`` now: its delay from the mover's 201
        (0 when the stream was first; matched when the 201 comes)."""
        sent = self.committed.get(key)
        if sent is None:
            now = time.perf_counter()
            self.early.setdefault(key, []).append(now)
            # versions no mover is answered for (the ticker's timeouts) are forgotten too
            _forget_before(self.early, now - self.KEEP_SECONDS, lambda shown: shown[0])
        elif self.measuring:
            self.delivery_ms.append((time.perf_counter() - sent) * 1000)

    def answered(self, key: tuple[int, int]) -> None:
        now = self.committed[key] = time.perf_counter()
        # a version every stream has shown long ago is forgotten
        _forget_before(self.committed, now - self.KEEP_SECONDS, lambda answered: answered)
        early = self.early.pop(key, [])
        if self.measuring:  # the streams that showed it before the mover's answer came: no delay
            self.delivery_ms.extend(0.0 for _ in early)

    def error(self, what: str) -> None:
        if self.measuring:
            self.errors.append(what)


@dataclass
class Player:
    name: str
    token: str
    rng: random.Random


class Table:
    def __init__(self, soak: Soak, players: list[Player]):
        self.soak, self.players = soak, players

    async def run(self) -> None:
        soak = self.soak
        api = Http(soak.port)
        status, _, view = await api.call("POST", "/api/games/", {"ruleset": "goat-classic", "seats": len(self.players),
                                                                 "options": {"move_time": soak.move_time,
                                                                             "limit": soak.limit}},
                                         self.players[0].token)
        if status != 201:
            soak.stats.error(f"create {status}")
            return
        game_id = view["id"]
        feeds = [asyncio.ensure_future(self.feed(p)) for p in self.players]
        try:
            while not soak.stopping:
                seats = [asyncio.ensure_future(self.seat(p, game_id, i == 0)) for i, p in enumerate(self.players)]
                await asyncio.sleep(0.2)  # the streams open before the last join starts the game
                for player in self.players[1:]:
                    status, _, body = await api.call("POST", f"/api/games/{game_id}/join/", {}, player.token)
                    if status != 200:
                        soak.stats.error(f"join {status} {body}")
                await asyncio.gather(*seats)
                soak.stats.games_ended += 1
                if soak.stopping:
                    return
                new_ids = set()
                for player in self.players:  # everyone asks; a repeat answers the same new game
                    status, _, body = await api.call("POST", f"/api/games/{game_id}/rematch/", {}, player.token)
                    if status not in (200, 201):
                        soak.stats.error(f"rematch {status}")
                        return
                    new_ids.add(body["id"])
                if len(new_ids) != 1:
                    soak.stats.error(f"rematch: {len(new_ids)} games")
                    return
                game_id = new_ids.pop()  # the first asker (players[0]) sits; the others join in the next loop
        except Exception as exc:  # noqa: BLE001 - counted, the table stops
            soak.stats.error(f"table: {exc!r}")
        finally:
            api.close()
            for feed in feeds:
                feed.cancel()

    async def feed(self, player: Player) -> None:
        try:
            while not self.soak.stopping:  # a feed the server ends (a worker recycled) is opened again
                async for _message in stream_lines(self.soak.port, "/api/stream/", player.token):
                    self.soak.stats.stream_messages += 1
                self.soak.stats.reopened += 1
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001
            if not self.soak.stopping:
                self.soak.stats.error(f"feed: {exc!r}")

    async def seat(self, player: Player, game_id: int, creator: bool) -> None:
        soak = self.soak
        api = Http(soak.port)
        acted: set[int] = set()
        status = "waiting"
        try:
            # the server ends a game's stream once the game ends; a stream it ends before (a worker
            # recycled, or stopping) is opened again, as the site's clients do: it starts with the state
            while status in ("waiting", "running") and not soak.stopping:
                async for message in stream_lines(soak.port, f"/api/games/{game_id}/stream/", player.token):
                    soak.stats.stream_messages += 1
                    game = message.get("game") if message["kind"] == "update" else \
                        message if message["kind"] == "state" else None
                    if game is not None:
                        status = game["status"]
                        self.shown(player, api, game_id, message, game, acted)
                if status in ("waiting", "running"):
                    soak.stats.reopened += 1
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001
            if not soak.stopping:
                soak.stats.error(f"stream: {exc!r}")
        finally:
            api.close()

    def shown(self, player: Player, api: Http, game_id: int, message: dict, game: dict, acted: set[int]) -> None:
        """A stream of ``player`` shows ``game``: note the delivery, and move when it is their turn."""
        soak = self.soak
        version = game["version"]
        if message["kind"] == "update":
            soak.stats.shown((game_id, version))
            flight = soak.stats.inflight.get(game_id)
            # the update that carries the move sent at version flight[1] (each stream sees it once)
            if (flight is not None and soak.stats.measuring
                    and any(event.get("seq") == flight[1] + 1 for event in message.get("events", ()))):
                soak.stats.to_stream_ms.append((time.perf_counter() - flight[0]) * 1000)
        if game["status"] != "running" or game["turn"] != game["your_seat"] or not game["legal_moves"]:
            return
        if version in acted:
            return
        acted.add(version)
        asyncio.ensure_future(self.move(api, player, game_id, game))

    async def move(self, api: Http, player: Player, game_id: int, game: dict) -> None:
        soak = self.soak
        away = player.rng.random() < soak.away
        await asyncio.sleep(soak.move_time + 3 if away else player.rng.uniform(soak.think_min, soak.think_max))
        if away or soak.stopping:
            return  # the ticker times this seat out
        choice = player.rng.choice(game["legal_moves"])
        body = {"tile": choice["tile"], **({"end": choice["end"]} if choice["end"] else {})}
        started = time.perf_counter()
        soak.stats.inflight[game_id] = (started, game["version"])
        try:
            status, _, answer = await api.call("POST", f"/api/games/{game_id}/moves/", body, player.token,
                                               {"If-Match": f'"{game["version"]}"'})
        except Exception as exc:  # noqa: BLE001
            soak.stats.error(f"move: {exc!r}")
            return
        elapsed = time.perf_counter() - started
        if status == 201:
            soak.stats.answered((game_id, answer["version"]))
            soak.stats.moves += 1
            if soak.stats.measuring:
                soak.stats.move_ms.append(elapsed * 1000)
        elif status != 412:  # 412: the clock timed the seat out first (the away share's neighbours)
            soak.stats.error(f"move {status} {answer}")


class Soak:
    def __init__(self, port: int, args):
        self.port = port
        self.stats = Stats()
        self.stopping = False
        self.move_time, self.away, self.limit = args.move_time, args.away, args.limit
        self.think_min, self.think_max = args.think_min, args.think_max
        self.rng = random.Random(args.seed)
        self.run_id = int(time.time()) % 10**6
        self.tables: list[asyncio.Future] = []
        self.players = 0

    async def signup(self, count: int) -> list[Player]:
        """``count`` new players with tokens, made in the database directly: a sign-up through the API
        hashes a password twice (sign-up and token), seconds of CPU for a step's hundreds of players
        that would land on the server before the step and are not what is measured."""
        names = [f"soak{self.run_id}p{self.players + i}" for i in range(count)]  # the database is kept
        tokens = await asyncio.to_thread(_players_make, names)
        return [Player(name, token, random.Random(self.rng.random())) for name, token in zip(names, tokens,
                                                                                            strict=True)]

    async def grow(self, total: int) -> None:
        """Seat players at new tables until ``total`` play."""
        while self.players < total:
            size = min(self.rng.choice((2, 3, 4)), max(2, total - self.players))
            players = await self.signup(size)
            self.players += size
            self.tables.append(asyncio.ensure_future(Table(self, players).run()))


def _players_make(names: list[str]) -> list[str]:
    from django.contrib.auth import get_user_model
    from django.db import connections
    from rest_framework.authtoken.models import Token

    User = get_user_model()
    try:
        # one by one (not bulk): the players app's post_save keeps the folded-username row
        users = [User.objects.create(username=name, password="!") for name in names]
        tokens = Token.objects.bulk_create([Token(user=user, key=Token.generate_key()) for user in users])
        return [token.key for token in tokens]
    finally:
        connections.close_all()


# --- the server and its processes --------------------------------------------------------------------


def _processes(root_pid: int) -> dict[str, list]:
    """The run's processes by role: web (gunicorn), worker (celery worker), beat, postgres is apart."""
    import psutil

    roles: dict[str, list] = {"web": [], "worker": [], "beat": []}
    for proc in psutil.Process(root_pid).children(recursive=True):
        try:
            cmd = " ".join(proc.cmdline())
        except psutil.Error:
            continue
        role = "web" if "gunicorn" in cmd else "beat" if " beat" in cmd else "worker" if "celery" in cmd else None
        if role:
            roles[role].append(proc)
    return roles


def _rss_mb(procs) -> float:
    import psutil

    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            pass
    return round(total / 2**20, 1)


def _cpu_s(procs) -> float:
    """CPU seconds of ``procs`` and of the children they have reaped: a web or pool process recycled
    during a step (``max_requests``) counts in its parent's."""
    import psutil

    total = 0.0
    for proc in procs:
        try:
            times = proc.cpu_times()
            total += times.user + times.system + times.children_user + times.children_system
        except psutil.Error:
            pass
    return total


def _postgres_cpu() -> dict[int, float]:
    """CPU seconds of each PostgreSQL process now (backends come and go: compare per pid)."""
    import psutil

    return {p.pid: _cpu_s([p]) for p in psutil.process_iter(["name"]) if (p.info["name"] or "").startswith("postgres")}


def _postgres_cpu_spent(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU spent by PostgreSQL between two readings of ``_postgres_cpu``. A backend that ended in
    between (its client closed the connection: a web worker recycled) is counted whole in the
    postmaster's reading, which holds the CPU of the children it reaped; so what that backend had
    spent by the first reading is taken off, and the difference of the two totals is exact."""
    return sum(after.values()) - sum(before.values())


def _db_counters(url: str) -> dict[str, float]:
    import psycopg

    with psycopg.connect(url) as conn:
        lsn = conn.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()[0]
        ins, upd = conn.execute("SELECT coalesce(sum(n_tup_ins), 0), coalesce(sum(n_tup_upd), 0) "
                                "FROM pg_stat_user_tables").fetchone()
        events, event_bytes = conn.execute(
            "SELECT count(*), coalesce(sum(pg_column_size(e.*)), 0) FROM goat_gameevent e").fetchone()
        # connections ever opened to the database (this one included: two a step are the soak's own)
        sessions = conn.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
                                ).fetchone()[0]
    return {"wal": float(lsn), "rows": float(ins + upd), "events": float(events), "event_bytes": float(event_bytes),
            "sessions": float(sessions)}


def _redis_counters(url: str) -> dict[str, float]:
    import redis

    client = redis.Redis.from_url(url)
    stats = client.info("commandstats")
    client.close()
    return {"redis_commands": float(sum(v["calls"] for v in stats.values())),
            "redis_publish": float(stats.get("cmdstat_publish", {}).get("calls", 0))}


class StandbyLag:
    """The standby's replay lag (seconds), sampled every ``every`` seconds in a thread while a step is
    measured, by the router's own measure (goat.web.db.replica.LAG_SQL), and the transactions the standby
    served (``pg_stat_database.xact_commit`` of its database: the reads the router sent it)."""

    def __init__(self, url: str, every: float = 0.5):
        self.url, self.every = url, every
        self.samples: list[float] = []
        self.unreachable = 0
        self._stop = False

    def _xacts(self) -> float:
        import psycopg

        with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
            return float(conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
                                      ).fetchone()[0])

    def _sample(self) -> None:
        import psycopg

        from goat.web.db.replica import LAG_SQL

        conn = None
        while not self._stop:
            try:
                if conn is None:
                    conn = psycopg.connect(self.url, autocommit=True, connect_timeout=5)
                in_recovery, lag = conn.execute(LAG_SQL).fetchone()
                self.samples.append(float(lag) if in_recovery else 0.0)
            except psycopg.Error:
                self.unreachable += 1
                conn = None
            time.sleep(self.every)
        if conn is not None:
            conn.close()

    async def measure(self, seconds: float) -> dict[str, float | int | None]:
        """Sample for ``seconds``; the lag's p50/p99/max and the standby's committed transactions."""
        self.samples, self.unreachable, self._stop = [], 0, False
        xacts = await asyncio.to_thread(self._xacts)
        sampler = asyncio.get_running_loop().run_in_executor(None, self._sample)
        await asyncio.sleep(seconds)
        self._stop = True
        await sampler
        served = await asyncio.to_thread(self._xacts) - xacts
        lags = self.samples
        return {"lag_p50_s": round(percentile(lags, 50), 3) if lags else None,
                "lag_p99_s": round(percentile(lags, 99), 3) if lags else None,
                "lag_max_s": round(max(lags), 3) if lags else None, "samples": len(lags),
                "unreachable": self.unreachable, "transactions": int(served)}


def _client_cpu_s() -> float:
    """CPU seconds (user + system) of this process: the load generator's."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _lateness_buckets(port: int) -> dict[float, float]:
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    out = {}
    for family in text_string_to_metric_families(text):
        if family.name == "goat_ticker_lateness_seconds":
            for sample in family.samples:
                if sample.name.endswith("_bucket"):
                    out[float(sample.labels["le"])] = sample.value
    return out


def _lateness_p99(before: dict[float, float], after: dict[float, float]) -> float | None:
    """The p99 of the timeouts between two scrapes: the first bucket bound holding 99% of them."""
    counts = sorted((le, after.get(le, 0) - before.get(le, 0)) for le in after)
    total = counts[-1][1] if counts else 0
    if total <= 0:
        return None
    for le, count in counts:
        if count >= 0.99 * total:
            return le
    return None


def run(args) -> dict:
    db_url = os.environ.get("DATABASE_URL", "")
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not db_url.startswith("postgres") or not broker.startswith("redis"):
        raise SystemExit("bench/soak.py runs against PostgreSQL + Redis: set DATABASE_URL and CELERY_BROKER_URL")
    scratch = Path(tempfile.mkdtemp(prefix="goat-soak-"))
    port = args.port or free_port()
    throttles = {f"GOAT_THROTTLE_{k}": "1000000/min" for k in ("USER", "ANON", "SIGNUP", "AUTH", "MOVES")}
    env = {**os.environ, **throttles, "GOAT_DATA_DIR": str(scratch / "goat-data"), "PYTHONUNBUFFERED": "1",
           "GOAT_ADMIN_PASSWORD": "soak-admin-password", "GOAT_STREAMS_PER_TOKEN": "16", "DB_POOL": "1"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    # as compose deploys it: the rate counts and idempotency locks in Redis, shared by the web processes
    env.setdefault("CACHE_URL", broker)
    if args.replica_url:
        env["DATABASE_REPLICA_URL"] = args.replica_url  # the public reads go to the standby (goat.web.db.replica)
    else:
        env.pop("DATABASE_REPLICA_URL", None)
    log = open(scratch / "run.log", "wb")  # noqa: SIM115 - open for the run's life
    server = subprocess.Popen([sys.executable, str(REPO / "manage.py"), "run", "--port", str(port), "--web-workers",
                               str(args.web_workers), "--worker-concurrency", str(args.worker_concurrency)],
                              cwd=scratch, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    # a SIGTERM (kill, a CI timeout) unwinds through the finally below, which stops the server's group
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        _wait_healthy(port, server, scratch)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "goat.settings")
        import django

        django.setup()  # the players are made in the database (Soak.signup)
        return asyncio.run(_steps(args, port, server.pid, db_url, broker))
    finally:
        try:
            os.killpg(server.pid, signal.SIGINT)
            server.wait(30)
        except ProcessLookupError:
            pass  # the server had already exited (its log says why)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()
        shutil.rmtree(scratch, ignore_errors=True)


def _wait_healthy(port: int, server, scratch: Path) -> None:
    import urllib.request

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit((scratch / "run.log").read_text()[-3000:])
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=2).status == 200:
                return
        except OSError:
            time.sleep(0.5)
    raise SystemExit("manage.py run did not answer /health/ in 120 s")


async def _steps(args, port: int, run_pid: int, db_url: str, broker: str) -> dict:
    soak = Soak(port, args)
    pauses = ClientPauses()
    steps = []
    for players in args.steps:
        await soak.grow(players)
        await asyncio.sleep(args.warmup_seconds)
        pauses.settle()
        roles = _processes(run_pid)
        rss_start = {role: _rss_mb(procs) for role, procs in roles.items()}
        cpu_start = {role: _cpu_s(procs) for role, procs in roles.items()}
        pg_start, db_start, redis_start = _postgres_cpu(), _db_counters(db_url), _redis_counters(broker)
        late_start = _lateness_buckets(port)
        stats = soak.stats = Stats(committed=soak.stats.committed, early=soak.stats.early,
                                   inflight=soak.stats.inflight, measuring=True)
        load_start = os.getloadavg()[0]
        client_start = _client_cpu_s()
        started = time.monotonic()
        standby = await StandbyLag(args.replica_url).measure(args.step_seconds) if args.replica_url else None
        if standby is None:
            await asyncio.sleep(args.step_seconds)
        elapsed = time.monotonic() - started
        client_cpu = _client_cpu_s() - client_start
        client_gc = pauses.figures()
        stats.measuring = False
        roles = _processes(run_pid)
        rss_end = {role: _rss_mb(procs) for role, procs in roles.items()}
        cpu = {role: _cpu_s(procs) - cpu_start[role] for role, procs in roles.items()}
        pg_cpu = _postgres_cpu_spent(pg_start, _postgres_cpu())
        db_end, redis_end = _db_counters(db_url), _redis_counters(broker)
        moves = max(stats.moves, 1)
        per_move = {k: round((db_end[k] - db_start[k]) / moves, 1) for k in ("wal", "rows")}
        new_events = db_end["events"] - db_start["events"]
        step = {
            "players": players, "seconds": round(elapsed, 1), "moves": stats.moves,
            "moves_per_s": round(stats.moves / elapsed, 1), "games_ended": stats.games_ended,
            "move_p50_ms": round(percentile(stats.move_ms, 50), 1) if stats.move_ms else None,
            "move_p99_ms": round(percentile(stats.move_ms, 99), 1) if stats.move_ms else None,
            "delivery_p99_ms": round(percentile(stats.delivery_ms, 99), 1) if stats.delivery_ms else None,
            "move_to_stream_p99_ms": round(percentile(stats.to_stream_ms, 99), 1) if stats.to_stream_ms else None,
            "load_average": [round(load_start, 1), round(os.getloadavg()[0], 1)],
            "errors": len(stats.errors), "error_samples": stats.errors[:5], "streams_reopened": stats.reopened,
            "postgres_connections_opened": int(db_end["sessions"] - db_start["sessions"]),
            "ticker_lateness_p99_s": _lateness_p99(late_start, _lateness_buckets(port)),
            "rss_mb_start": rss_start, "rss_mb_end": rss_end, **client_gc,
            "per_move": {
                "web_cpu_ms": round(cpu["web"] / moves * 1000, 2),
                "worker_cpu_ms": round((cpu["worker"] + cpu["beat"]) / moves * 1000, 2),
                "postgres_cpu_ms": round(pg_cpu / moves * 1000, 2),
                # the simulated players (this process), on the same cores: apart from the server's
                "client_cpu_ms": round(client_cpu / moves * 1000, 2),
                "wal_bytes": per_move["wal"], "rows_written": per_move["rows"],
                "events": round(new_events / moves, 2),
                "event_bytes": round((db_end["event_bytes"] - db_start["event_bytes"]) / moves, 1),
                "redis_commands": round((redis_end["redis_commands"] - redis_start["redis_commands"]) / moves, 2),
                "redis_publish": round((redis_end["redis_publish"] - redis_start["redis_publish"]) / moves, 2),
                "stream_messages": round(stats.stream_messages / moves, 2),
            },
        }
        if standby is not None:
            standby["transactions_per_move"] = round(standby.pop("transactions") / moves, 2)
            step["standby"] = standby
        growth = max((rss_end[r] / rss_start[r] - 1) if rss_start[r] else 0 for r in ("web", "worker"))
        step["rss_growth"] = round(growth, 3)
        step["holds"] = bool(step["move_p99_ms"] is not None and step["move_p99_ms"] <= args.p99_ms
                             and not stats.errors and growth <= 0.05)
        steps.append(step)
        print(json.dumps(step), file=sys.stderr, flush=True)
        if not args.every_step and (step["move_p99_ms"] is None or step["move_p99_ms"] > args.p99_ms):
            break
    soak.stopping = True
    for table in soak.tables:
        table.cancel()
    await asyncio.gather(*soak.tables, return_exceptions=True)
    held = [s["players"] for s in steps if s["holds"]]
    return {"bench": "soak", "steps": steps, "players_per_machine": max(held) if held else 0,
            "cores": os.cpu_count(), "think_s": [args.think_min, args.think_max], "seed": args.seed,
            "move_time_s": args.move_time, "away": args.away, "limit": args.limit, "step_seconds": args.step_seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default="100,200,400,800,1600,3200",
                        type=lambda text: [int(x) for x in re.split(r"[ ,]+", text) if x])
    parser.add_argument("--step-seconds", type=float, default=120)
    parser.add_argument("--warmup-seconds", type=float, default=20)
    parser.add_argument("--think-min", type=float, default=2.0)
    parser.add_argument("--think-max", type=float, default=8.0)
    parser.add_argument("--move-time", type=int, default=30, help="the games' move clock (s)")
    parser.add_argument("--limit", type=int, default=25,
                        help="the games' point limit: short games, so that tables rematch within a step")
    parser.add_argument("--away", type=float, default=0.02, help="share of turns the player lets the clock run out")
    parser.add_argument("--p99-ms", type=float, default=100.0)
    parser.add_argument("--every-step", action="store_true", help="run every step, also past the p99 limit")
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--worker-concurrency", type=int, default=2)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--replica-url", default=os.environ.get("DATABASE_REPLICA_URL", ""),
                        help="a streaming standby of DATABASE_URL's primary: the server reads from it "
                             "(DATABASE_REPLICA_URL) and each step reports its replay lag")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    f = run(args)
    lines = [f"soak: think {args.think_min}-{args.think_max} s, seed {args.seed}, {args.step_seconds:.0f} s steps"]
    for s in f["steps"]:
        lines.append(
            f"  {s['players']:>5} players: {s['moves_per_s']:>6} moves/s, move p50 {s['move_p50_ms']} ms p99 "
            f"{s['move_p99_ms']} ms, delivery p99 {s['delivery_p99_ms']} ms (move to stream "
            f"{s['move_to_stream_p99_ms']} ms), {s['errors']} errors, load {s['load_average']}, ticker p99 "
            f"{s['ticker_lateness_p99_s']} s, client GC max {s['client_gc_max_ms']} ms, "
            f"RSS web {s['rss_mb_start']['web']}->{s['rss_mb_end']['web']} MB, "
            f"worker {s['rss_mb_start']['worker']}->{s['rss_mb_end']['worker']} MB: {'holds' if s['holds'] else 'no'}")
        if "standby" in s:
            sb = s["standby"]
            lines.append(f"         standby: lag p50 {sb['lag_p50_s']} s p99 {sb['lag_p99_s']} s "
                         f"max {sb['lag_max_s']} s ({sb['samples']} samples, {sb['unreachable']} unreachable), "
                         f"{sb['transactions_per_move']} transactions per move")
    lines.append(f"players per machine ({f['cores']} cores): {f['players_per_machine']}")
    emit(f, args.json, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
