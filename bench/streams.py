"""Live streams under load: delivery latency with 1,000 idle streams open, their memory and idle CPU,
and move throughput with and without them, all against one server in one run.

    python bench/streams.py [--idle 1000] [--games 4] [--moves 150] [--seconds 6] [--rounds 2] [--json]

Starts gunicorn with goat's uvicorn workers on ``goat.asgi`` (bench/http_load.py's server, the one
``manage.py run`` serves) against ``DATABASE_URL`` (else a throwaway SQLite file) and the live backend
of the settings (Redis when ``CELERY_BROKER_URL`` is Redis, else the local substitute). Then:

* opens ``--idle`` idle streams as a client of each of ``--idle``/2 accounts would: its player feed
  and a game stream of a waiting game nobody touches (two streams per token, within the per-token
  limit ``GOAT_STREAMS_PER_TOKEN`` a real token has), and measures the web workers' RSS before and
  after (per stream) and their CPU over 10 s;
* plays ``--games`` 2-seat games move by move, each watched by 4 streams (both players and two
  spectators); the delivery latency of an update is its arrival at the client minus the ``at`` of its
  last event (taken just before the append, so slightly more than commit -> stream);
* alternates ``--rounds`` times the move throughput of bench/http_load.py's moves phase (8 clients)
  with the idle streams open and closed; the ratio with / without is the figure (target >= 0.9).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import statistics
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import emit, percentile, use_database  # noqa: E402
from http_load import free_port, load, post, prepare_games, start_server  # noqa: E402

TARGET_RATIO = 0.9


class StreamPool:
    """Streams held open by one asyncio loop on a thread of this process."""

    def __init__(self, port: int):
        self.port = port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.writers: list[asyncio.StreamWriter] = []
        self.deliveries: list[float] = []

    def run(self, coro, timeout: float = 300):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _open(self, path: str, token: str, watch: bool) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {token}\r\n"
                     f"Accept: application/x-ndjson\r\n\r\n".encode())
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            raise RuntimeError(f"stream {path}: {status!r}")
        while (await reader.readline()).strip():
            pass
        self.writers.append(writer)
        first = asyncio.Event()
        self.loop.create_task(self._read(reader, first, watch))
        await first.wait()

    async def _read(self, reader: asyncio.StreamReader, first: asyncio.Event, watch: bool) -> None:
        try:
            while True:
                size_line = await reader.readline()  # chunked transfer encoding
                if not size_line:
                    return
                size = int(size_line.strip() or b"0", 16)
                if size == 0:
                    return
                chunk = await reader.readexactly(size + 2)
                arrived = time.time()
                first.set()
                for line in chunk[:-2].split(b"\n"):
                    if watch and line.startswith(b'{"kind":"update"'):
                        message = json.loads(line)
                        at = datetime.fromisoformat(message["events"][-1]["at"].replace("Z", "+00:00"))
                        self.deliveries.append(arrived - at.timestamp())
        except (ConnectionError, asyncio.IncompleteReadError):
            return

    def open(self, items: list[tuple[str, str, bool]], batch: int = 50) -> None:
        async def go():
            for i in range(0, len(items), batch):
                await asyncio.gather(*(self._open(p, t, w) for p, t, w in items[i:i + batch]))

        self.run(go())

    def close_all(self) -> None:
        async def go():
            for writer in self.writers:
                writer.close()
            self.writers.clear()
            await asyncio.sleep(0.5)

        self.run(go())


def _workers(server_pid: int):
    import psutil

    return psutil.Process(server_pid).children()


def _rss(procs) -> int:
    return sum(p.memory_info().rss for p in procs)


def _cpu(procs) -> float:
    return sum(p.cpu_times().user + p.cpu_times().system for p in procs)


def run(idle: int, games: int, moves: int, seconds: float, rounds: int, workers: int, threads: int,
        port: int = 0) -> dict:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from goat.games import services

    call_command("migrate", verbosity=0, interactive=False)
    User = get_user_model()
    tag = f"{os.getpid()}"
    # the idle streams' accounts: a feed and a game stream each (no password: they only hold tokens)
    idlers = User.objects.bulk_create([User(username=f"idle-{tag}-{i}", password="!") for i in range((idle + 1) // 2)])
    idle_tokens = [t.key for t in Token.objects.bulk_create([Token(user=u, key=Token.generate_key()) for u in idlers])]
    quiet = services.game_create(player=idlers[0], ruleset="goat-classic", seats=2).game
    watcher_tokens = [Token.objects.create(user=User.objects.create_user(username=f"watch-{tag}-{i}",
                                                                         password="x" * 12)).key for i in range(2)]
    watched = prepare_games(games, moves, seed=7)
    connection.close()
    port = port or free_port()
    os.environ["GOAT_LIVE_PREFIX"] = settings.GOAT_LIVE_PREFIX
    server = start_server(port, workers, threads, "asgi")
    pool = StreamPool(port)
    figures = {"bench": "streams", "database": connection.vendor, "idle_streams": idle,
               "live_backend": "redis" if settings.GOAT_LIVE_URL != "local" else "local",
               "server": f"gunicorn {workers} uvicorn workers (goat.asgi), {threads} WSGI threads each"}
    try:
        load(port, [[("/bench/ping/", b"{}", {})] * 20 for _ in range(8)], 5, post)  # warm-up
        procs = _workers(server.pid)
        time.sleep(1)
        rss_before = _rss(procs)
        items = [("/api/stream/" if i % 2 else f"/api/games/{quiet.pk}/stream/", idle_tokens[i // 2], False)
                 for i in range(idle)]
        pool.open(items)
        time.sleep(2)
        rss_after = _rss(procs)
        cpu_start, wall_start = _cpu(procs), time.monotonic()
        time.sleep(10)
        idle_cpu = (_cpu(procs) - cpu_start) / (time.monotonic() - wall_start)
        figures |= {"rss_per_idle_stream_kb": round((rss_after - rss_before) / idle / 1024, 1),
                    "idle_cpu_percent": round(idle_cpu * 100, 2)}
        # delivery: each watched game by both players and two spectators
        pool.open([(f"/api/games/{p['game']}/stream/", tok, True)
                   for p in watched for tok in (*p["tokens"], *watcher_tokens)])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for step in range(moves):
            for p in watched:
                if step < len(p["moves"]):
                    seat, version, body = p["moves"][step]
                    post(conn, f"/api/games/{p['game']}/moves/", body,
                         {"Authorization": f"Token {p['tokens'][seat]}", "If-Match": f'"{version}"'})
            time.sleep(0.01)
        time.sleep(1)
        delivered = list(pool.deliveries)
        expected = 4 * sum(min(moves, len(p["moves"])) for p in watched)
        figures |= {"deliveries": len(delivered), "deliveries_expected": expected,
                    "delivery_p50_ms": round(percentile(delivered, 50) * 1000, 2),
                    "delivery_p99_ms": round(percentile(delivered, 99) * 1000, 2),
                    "delivery_max_ms": round(max(delivered) * 1000, 2)}
        # throughput with / without the idle streams (alternating; the idle ones are re-opened each time)
        rates: dict[str, list[float]] = {"with": [], "without": []}
        warm = prepare_games(8, 200, seed=99)  # a moves warm-up: every thread's connection and caches
        connection.close()
        load(port, [[(f"/api/games/{p['game']}/moves/", body,
                      {"Authorization": f"Token {p['tokens'][seat]}", "If-Match": f'"{version}"'})
                     for seat, version, body in p["moves"]] for p in warm], 3, post)
        for r in range(rounds):
            for phase in (("with", "without") if r % 2 == 0 else ("without", "with")):
                if phase == "without":
                    pool.close_all()
                elif not pool.writers:
                    pool.open(items)
                plans = prepare_games(8, 600, seed=100 + r * 2 + (phase == "with"))
                connection.close()
                jobs = [[(f"/api/games/{p['game']}/moves/", body,
                          {"Authorization": f"Token {p['tokens'][seat]}", "If-Match": f'"{version}"'})
                         for seat, version, body in p["moves"]] for p in plans]
                latencies, wall, _ = load(port, jobs, seconds, post)
                rates[phase].append(len(latencies) / wall)
        with_, without = statistics.median(rates["with"]), statistics.median(rates["without"])
        figures |= {"moves_per_s_with_idle": round(with_, 1), "moves_per_s_without": round(without, 1),
                    "throughput_ratio": round(with_ / without, 3), "target": f">= {TARGET_RATIO}"}
    finally:
        pool.close_all()
        server.terminate()
        server.wait(timeout=30)
    return figures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--moves", type=int, default=150, help="moves per watched game")
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.bench_settings"
    use_database("bench.bench_settings")
    import django

    django.setup()
    f = run(args.idle, args.games, args.moves, args.seconds, args.rounds, args.workers, args.threads, args.port)
    emit(f, args.json, [
        f"streams: {f['server']}, {f['database']}, live backend {f['live_backend']}, {f['idle_streams']} idle streams",
        f"  delivery commit -> stream: p50 {f['delivery_p50_ms']} ms, p99 {f['delivery_p99_ms']} ms, "
        f"max {f['delivery_max_ms']} ms ({f['deliveries']} of {f['deliveries_expected']} updates)",
        f"  idle: {f['rss_per_idle_stream_kb']} KB RSS per stream, {f['idle_cpu_percent']} % CPU",
        f"  moves/s with idle streams {f['moves_per_s_with_idle']}, without {f['moves_per_s_without']}: "
        f"{f['throughput_ratio']}x (target {f['target']})",
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())
