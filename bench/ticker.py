"""The clock ticker: how late a stalled player is timed out, and what a tick costs as running games grow.

    python bench/ticker.py [--games N] [--clock S] [--large N] [--quick] [--json]

Against the configured database and broker (``DATABASE_URL``, ``CELERY_BROKER_URL``; without them a
throwaway SQLite file and kombu's filesystem broker: the embedded default).

(a) lateness: N running 2-seat games (default 1,000) whose player to move has an S-second clock
    (default 2 s) and never moves; their deadlines are spread evenly over the S seconds after the
    start, so N clocks run at once. A real ``celery -A goat worker --beat`` (the one beat, the
    ticker every second, as ``manage.py run`` starts them) times them out. Lateness of each game =
    the ``at`` of its ``timed_out`` event minus its deadline. Reported: p50, p99, max; target
    p99 <= 1.5 s. Then how long the projections of the ended games took to catch up (waited for up
    to 120 s). The bench purges the broker's queues first: give it a broker of its own.
(b) cost per tick: ``games_tick_clocks()`` in process with nothing due, among 1,000 and among
    ``--large`` (default 10,000) running clocks (deadlines an hour away); the ratio large/small
    (target: flat, <= 1.5). And the cost of one timeout (what a tick adds per due game). Each is
    measured on a table at rest: the game table is vacuumed and analysed first, so that neither an
    autovacuum woken by the copies just written nor the dead index entries of part (a)'s timeouts run
    beside the ticks.

The games are copies of one game made through the services (its row, seats and events: the hash
chain does not name the game, so each copy's chain is sound), each with its own two players.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO, emit, percentile, use_database  # noqa: E402

TARGET_P99 = 1.5
TARGET_FLAT = 1.5


def template(clock: int):
    from django.contrib.auth import get_user_model

    from goat.games import services
    from goat.games.models import Game, GameEvent

    User = get_user_model()
    tag = f"tick-{os.getpid()}-{time.monotonic_ns()}"
    a, b = (User.objects.create_user(username=f"{tag}-{i}") for i in range(2))
    game = services.game_create(player=a, ruleset="goat-classic", seats=2, options={"move_time": clock}).game
    services.game_join(game_id=game.pk, player=b)
    game = Game.objects.get(pk=game.pk)
    events = list(GameEvent.objects.filter(game=game).order_by("seq"))
    return game, events, tag


def copies(game, events, tag: str, deadlines: list) -> list[int]:
    """One running copy of ``game`` per deadline, each with two players of its own."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from goat.games.models import Game, GameEvent, Seat

    User = get_user_model()
    password = make_password(None)
    tag = f"{tag}-{time.monotonic_ns()}"
    ids = []
    for start in range(0, len(deadlines), 1000):
        chunk = deadlines[start:start + 1000]
        users = User.objects.bulk_create([User(username=f"{tag}-c{start + i}-{s}", password=password)
                                          for i in range(len(chunk)) for s in range(2)])
        fields = {f.attname: getattr(game, f.attname) for f in Game._meta.concrete_fields if f.attname != "id"}
        rows = Game.objects.bulk_create([Game(**{**fields, "deadline": d, "created_by_id": users[2 * i].pk})
                                         for i, d in enumerate(chunk)])
        Seat.objects.bulk_create([Seat(game=row, seat=s, player=users[2 * i + s])
                                  for i, row in enumerate(rows) for s in range(2)])
        GameEvent.objects.bulk_create([GameEvent(game=row, seq=e.seq, type=e.type, seat=e.seat, data=e.data,
                                                 actor=None, at=e.at, prev_hash=e.prev_hash, hash=e.hash)
                                       for row in rows for e in events])
        ids += [row.pk for row in rows]
    return ids


def worker(data_dir: Path, log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO), "CELERY_TASK_ALWAYS_EAGER": "0",
           "LOG_LEVEL": os.environ.get("TICKER_LOGLEVEL", "WARNING")}
    cmd = [sys.executable, "-m", "celery", "-A", "goat", "worker", "--beat", "--concurrency", "2", "--loglevel",
           os.environ.get("TICKER_LOGLEVEL", "WARNING"), "--schedule", str(data_dir / "beat-schedule"),
           "--hostname", f"ticker-{os.getpid()}@%h",
           *(["-Q", os.environ["TICKER_QUEUES"]] if os.environ.get("TICKER_QUEUES") else [])]
    return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(proc: subprocess.Popen) -> None:
    """Stop the worker, its pool and its beat: the whole process group (a warm shutdown waits for the
    projection tasks still queued, so it is cut short after 10 s)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
    except subprocess.TimeoutExpired:
        pass
    except ProcessLookupError:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def lateness(games: int, clock: int, timeout: float) -> dict:
    from django.utils import timezone

    from goat.games import projections
    from goat.games.models import Game, GameEvent, ProjectionRecord

    game, events, tag = template(clock)
    Game.objects.filter(pk=game.pk).update(deadline=None)  # the template itself never times out
    start = timezone.now() + timedelta(seconds=3)  # the copies and the worker are ready by then
    deadlines = [start + timedelta(seconds=clock * (i + 0.5) / games) for i in range(games)]
    from goat.celery import app

    app.control.purge()  # what an earlier run left in the queues is not this run's work
    data_dir = Path(tempfile.mkdtemp(prefix="goat-ticker-"))
    proc = worker(data_dir, data_dir / "worker.log")
    try:
        ids = copies(game, events, tag, deadlines)
        due = dict(zip(ids, deadlines, strict=True))
        wall_deadline = time.monotonic() + timeout
        while time.monotonic() < wall_deadline:
            left = Game.objects.filter(pk__in=ids, status="running").count()
            if not left:
                break
            time.sleep(0.5)
        # then the projections of the ended games (they give way to late clocks, then catch up)
        wanted = len(projections.registered()) * len(ids)
        caught_up = None
        wall_deadline = min(wall_deadline, time.monotonic() + 120)
        while time.monotonic() < wall_deadline:
            if ProjectionRecord.objects.filter(game_id__in=ids).count() >= wanted:
                caught_up = (timezone.now() - deadlines[-1]).total_seconds()
                break
            time.sleep(0.5)
        projected = ProjectionRecord.objects.filter(game_id__in=ids).count() // len(projections.registered())
    finally:
        stop(proc)
    timed = dict(GameEvent.objects.filter(game_id__in=ids, type="timed_out").values_list("game_id", "at"))
    late = [(timed[g] - due[g]).total_seconds() for g in ids if g in timed]
    missing = len(ids) - len(late)
    worst = max(late) if late else float("nan")
    return {"games": games, "clock_seconds": clock, "timed_out": len(late), "missing": missing,
            "projections_done_after_last_deadline_s": None if caught_up is None else round(caught_up, 1),
            "games_projected": projected,
            "early": sum(x < 0 for x in late), "p50_s": round(percentile(late, 50), 3),
            "p99_s": round(percentile(late, 99), 3), "max_s": round(worst, 3),
            "target": f"p99 <= {TARGET_P99} s",
            "pass": bool(late) and not missing and percentile(late, 99) <= TARGET_P99}


def settle() -> None:
    """Vacuum and analyse the game table (outside any transaction), as a running database keeps it."""
    from django.db import connection

    from goat.games.models import Game

    table = connection.ops.quote_name(Game._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM ANALYZE {table}" if connection.vendor == "postgresql" else f"ANALYZE {table}")


def tick_cost(small: int, large: int, repeat: int) -> dict:
    from django.utils import timezone

    from goat.games import services
    from goat.games.models import Game
    from goat.games.tasks import games_tick_clocks

    game, events, tag = template(3600)
    far = timezone.now() + timedelta(hours=1)
    ids = copies(game, events, tag, [far] * small)

    def idle_tick() -> float:
        settle()
        assert games_tick_clocks() == 0  # not timed: it reloads the catalog entries the analysis invalidated
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            assert games_tick_clocks() == 0
            samples.append(time.perf_counter() - started)
        return statistics.median(samples)

    small_s = idle_tick()
    ids += copies(game, events, tag, [far] * (large - small))
    large_s = idle_tick()
    assert Game.objects.filter(deadline__isnull=False).count() >= large
    # one timeout, as a tick runs it: the service on a game whose deadline has passed
    past = timezone.now() - timedelta(seconds=1)
    Game.objects.filter(pk__in=ids[:repeat]).update(deadline=past)
    versions = dict(Game.objects.filter(pk__in=ids[:repeat]).values_list("pk", "version"))
    per = []
    for game_id in ids[:repeat]:
        started = time.perf_counter()
        assert services.game_time_out(game_id=game_id, expected_version=versions[game_id])
        per.append(time.perf_counter() - started)
    return {"small_running": small, "large_running": large, "repeat": repeat,
            "idle_tick_ms_small": round(small_s * 1000, 3), "idle_tick_ms_large": round(large_s * 1000, 3),
            "ratio": round(large_s / small_s, 3), "timeout_ms_median": round(statistics.median(per) * 1000, 3),
            "target": f"<= {TARGET_FLAT}", "pass": large_s / small_s <= TARGET_FLAT}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--clock", type=int, default=2)
    parser.add_argument("--large", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--part", choices=["all", "lateness", "cost"], default="all")
    parser.add_argument("--quick", action="store_true", help="200 games, 2,000 for the large tick")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.large, args.repeat = 200, 2000, 30
    url = use_database()
    os.environ.setdefault("CELERY_BROKER_URL", "filesystem://")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    broker = os.environ["CELERY_BROKER_URL"].split(":", 1)[0]
    figures: dict = {"bench": "ticker", "database": connection.vendor, "broker": broker}
    lines = [f"ticker on {connection.vendor} + {broker} ({url.split('@')[-1]})"]
    if args.part in ("all", "lateness"):
        late = figures["lateness"] = lateness(args.games, args.clock, timeout=args.clock + 300)
        lines.append(f"  lateness: {late['timed_out']}/{late['games']} stalled players timed out "
                     f"({late['clock_seconds']} s clocks), p50 {late['p50_s']} s, p99 {late['p99_s']} s, "
                     f"max {late['max_s']} s, {late['early']} early, {late['missing']} missing; projections "
                     f"of {late['games_projected']} games done "
                     f"{late['projections_done_after_last_deadline_s']} s after "
                     "the last deadline "
                     f"(target p99 <= {TARGET_P99} s: {'PASS' if late['pass'] else 'MISS'})")
    if args.part in ("all", "cost"):
        cost = figures["cost"] = tick_cost(1000, args.large, args.repeat)
        lines.append(f"  idle tick: {cost['idle_tick_ms_small']} ms among {cost['small_running']} running clocks, "
                     f"{cost['idle_tick_ms_large']} ms among {cost['large_running']}: x{cost['ratio']} "
                     f"(target <= {TARGET_FLAT}: {'PASS' if cost['pass'] else 'MISS'}); "
                     f"one timeout {cost['timeout_ms_median']} ms")
    figures["pass"] = all(part["pass"] for key, part in figures.items() if isinstance(part, dict))
    emit(figures, args.json, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
