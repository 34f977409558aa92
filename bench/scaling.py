"""Does it stay cheap as data grows? Leaderboard pages, ratings rebuild, a Celery worker's memory.

    python bench/scaling.py [--part leaderboard,rebuild,worker] [--quick] [--json]

(a) move latency early vs late is bench/api.py (``run_all`` runs it next to this one).

(b) leaderboard: ``GET /api/leaderboards/ratings/?period=all`` (page 1 and the last page) through the
    test client, median of 20, with a small ledger and again after growing it 100x in the same
    database: 10k -> 1M RatingEntry rows (1k -> 100k players, their ``ratings:all`` LeaderboardRows
    aggregated from the ledger), loaded with INSERT ... SELECT generate_series on the server, then
    counted with ``ratings.leaderboards.leaderboards_recount`` (places are computed at read, R-9).
    Target: large / small <= 2. PostgreSQL only (``--quick``: 10k -> 100k).

(c) rebuild: N simulated games (goat.engine.simulate, 2 and 4 seats) written through
    ``events_append`` with their Game and Seat rows; ``ratings_rebuild`` timed against the baseline
    of replaying the same events in memory (``evolve_all``); events/s and the time for 100k games
    PROJECTED from N (linear in games, which the ledger-indexed writes of the rebuild should allow).

(d) worker: a real ``celery -A goat worker --pool solo`` on its own queue applies ``ratings_apply_game``
    to 10k ended games (synthesised from simulated games, with the final snapshot the services leave,
    so the worker does exactly what it does after a real game); its RSS (psutil) is sampled after
    1k, 5k and 10k games. Target: RSS@10k / RSS@1k <= 1.1 (flat).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO, emit, is_postgres_url, timed, use_database  # noqa: E402

LEADERBOARD_TARGET = 2.0
RSS_TARGET = 1.1
PER_PAGE = 50


# --- (b) leaderboard -----------------------------------------------------------------------------


def grow_ledger(upto: int, have: int) -> None:
    """Grow the synthetic ledger from ``have`` to ``upto`` entries (players = entries / 10, 2 per game)
    and recompute the ``ratings:all`` boards from it, all on the server."""
    from django.db import connection

    players_have, players = have // 10, upto // 10
    with connection.cursor() as c:
        c.execute("""INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email,
                     is_staff, is_active, date_joined)
                     SELECT '!', false, 'lb' || g, '', '', '', false, true, now()
                     FROM generate_series(%s, %s - 1) g""", [players_have, players])
        c.execute("SELECT id FROM auth_user WHERE username = 'lb0'")
        (creator,) = c.fetchone()
        c.execute("""INSERT INTO goat_game (ruleset, options, seats, status, version, round, server_seed,
                     server_seed_commitment, snapshot_version, last_hash, created_by_id, created_at, updated_at,
                     ended_at, result, verification_detail, computers, computer_level, private, casual, bots)
                     SELECT 'goat-classic', '{}', 2, 'finished', 0, 0, 'lb' || g, '', 0, '', %s, now(), now(), now(),
                            '{}', '', 0, '', false, false, 0
                     FROM generate_series(%s, %s - 1) g""", [creator, have // 2, upto // 2])
        # entry i: game 'lb' || i/2, player 'lb' || (i % players) -- two different players per game
        c.execute("""INSERT INTO ratings_ratingentry (game_id, player_id, seat, points, reason, ruleset, goat, at)
                     SELECT gm.id, u.id, i %% 2, (i * 37) %% 13, 'finished', 'goat-classic', i %% 3 = 0,
                            now() - make_interval(secs => i)
                     FROM generate_series(%s, %s - 1) i
                     JOIN goat_game gm ON gm.server_seed = 'lb' || (i / 2)
                     JOIN auth_user u ON u.username = 'lb' || (i %% %s)""",
                  [have, upto, players])
        c.execute("DELETE FROM ratings_leaderboardrow WHERE board LIKE 'ratings:all:%%'")
        for board in ("ratings:all:*", "ratings:all:goat-classic"):
            c.execute("""INSERT INTO ratings_leaderboardrow (board, player_id, username, rating, games, goats)
                         SELECT %s, e.player_id, u.username, sum(e.points), count(*), count(*) FILTER (WHERE e.goat)
                         FROM ratings_ratingentry e JOIN auth_user u ON u.id = e.player_id
                         WHERE u.username LIKE 'lb%%' GROUP BY e.player_id, u.username""", [board])
    # the rows were loaded in bulk: count them on their boards (decisions.md R-9), as
    # leaderboards_refresh / ratings_rebuild do after theirs
    from django.db import transaction

    from ratings.leaderboards import leaderboards_recount

    with transaction.atomic():
        leaderboards_recount(["ratings:all:*", "ratings:all:goat-classic"])
    with connection.cursor() as c:
        c.execute("ANALYZE")


def page_ms(client, page: int, repeat: int) -> float:
    url = f"/api/leaderboards/ratings/?period=all&page={page}"
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url)
        samples.append(time.perf_counter() - started)
        assert response.status_code == 200, response.content[:300]
    return statistics.median(samples) * 1000


def leaderboard(small: int, large: int, repeat: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from rest_framework.test import APIClient

    if connection.vendor != "postgresql":
        return {"skipped": "needs PostgreSQL (set DATABASE_URL)"}
    viewer, _ = get_user_model().objects.get_or_create(username="bench-viewer")
    client = APIClient()
    client.force_authenticate(viewer)
    figures: dict = {"small_entries": small, "large_entries": large, "repeat": repeat}
    load_s = {}
    for name, upto, have in (("small", small, 0), ("large", large, small)):
        load_s[name] = timed(lambda upto=upto, have=have: grow_ledger(upto, have))
        last = -(-(upto // 10) // PER_PAGE)
        page_ms(client, 1, 3)  # warm-up
        figures[f"{name}_players"] = upto // 10
        figures[f"{name}_last_page"] = last
        figures[f"{name}_page1_ms"] = round(page_ms(client, 1, repeat), 2)
        figures[f"{name}_last_page_ms"] = round(page_ms(client, last, repeat), 2)
    figures["load_seconds_large"] = round(load_s["large"], 1)
    figures["page1_ratio"] = round(figures["large_page1_ms"] / figures["small_page1_ms"], 3)
    figures["last_page_ratio"] = round(figures["large_last_page_ms"] / figures["small_last_page_ms"], 3)
    figures["target"] = f"<= {LEADERBOARD_TARGET}"
    figures["page1_pass"] = figures["page1_ratio"] <= LEADERBOARD_TARGET
    figures["last_page_pass"] = figures["last_page_ratio"] <= LEADERBOARD_TARGET
    return figures


# --- (c) ratings rebuild -------------------------------------------------------------------------


def simulated(n: int, seed: int) -> list[list[dict]]:
    from goat.engine.simulate import simulate_game

    rng = random.Random(seed)
    return [simulate_game(rng, ruleset="goat-classic", seats=(2, 4)[i % 2]) for i in range(n)]


def bots() -> list:
    from django.contrib.auth import get_user_model

    User = get_user_model()
    return [User.objects.get_or_create(username=f"bot{s}")[0] for s in range(4)]


def write_games(logs: list[list[dict]]) -> int:
    """Each log as a stored game: Game row, Seat rows, its events through ``events_append``, and the
    read model the services would leave (status, result, snapshot). Returns the events written."""
    from django.db import transaction
    from django.utils import timezone

    from goat.engine.rules import evolve_all
    from goat.games import eventstore
    from goat.games.models import Game, Seat

    players = bots()
    events = 0
    for log in logs:
        state = evolve_all(log)
        with transaction.atomic():
            now = timezone.now()
            game = Game.objects.create(ruleset=state.ruleset, options=state.options.to_dict(), seats=state.seats,
                                       status=state.status, server_seed=state.server_seed or "",
                                       server_seed_commitment=state.commitment, created_by=players[0])
            Seat.objects.bulk_create([Seat(game=game, seat=s, player=players[s]) for s in range(state.seats)])
            eventstore.events_append(game=game, events=log, at=now)
            game.result = state.result.to_dict() if state.result is not None else None
            game.ended_at = now if state.ended else None
            game.snapshot, game.snapshot_version = eventstore.snapshot_dump(state), state.version
            game.save()
        events += len(log)
    return events


def rebuild(games: int, repeat: int) -> dict:
    from goat.engine.rules import evolve_all
    from goat.games.models import GameEvent
    from ratings.services import ratings_rebuild

    logs = simulated(games, 11)
    write_games(logs)
    total_events = GameEvent.objects.count()
    total_games = len(set(GameEvent.objects.values_list("game_id", flat=True).distinct()))
    rebuild_s = statistics.median(timed(ratings_rebuild) for _ in range(repeat))
    replay_s = statistics.median(timed(lambda: [evolve_all(log) for log in logs]) for _ in range(repeat))
    replay_s *= total_events / sum(len(log) for log in logs)  # same number of events as the rebuild reads
    per_game = rebuild_s / total_games
    return {
        "games": total_games, "events": total_events, "repeat": repeat,
        "rebuild_seconds": round(rebuild_s, 3), "rebuild_events_per_s": round(total_events / rebuild_s),
        "replay_events_per_s": round(total_events / replay_s),
        "ratio_rebuild_to_replay": round(rebuild_s / replay_s, 2),
        "projected_100k_games_seconds": round(per_game * 100_000),
        "projection": f"linear projection from {total_games} games ({total_events / total_games:.0f} events/game)",
    }


# --- (d) worker memory ---------------------------------------------------------------------------


def synth_ended_games(count: int, distinct: int) -> list[int]:
    """``count`` ended games (rows, seats, final snapshot and result) cycling over ``distinct`` simulated ones."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from goat.engine.rules import evolve_all
    from goat.games import eventstore
    from goat.games.models import Game, Seat

    User = get_user_model()
    pool = [User.objects.get_or_create(username=f"rss{i}")[0] for i in range(200)]
    states = [s for s in (evolve_all(log) for log in simulated(distinct, 23)) if s.ended and s.result is not None]
    rng = random.Random(5)
    ids = []
    for start in range(0, count, 1000):
        now = timezone.now()
        batch = [states[(start + i) % len(states)] for i in range(min(1000, count - start))]
        games = Game.objects.bulk_create([
            Game(ruleset=s.ruleset, options=s.options.to_dict(), seats=s.seats, status=s.status, version=s.version,
                 server_seed=s.server_seed or "", server_seed_commitment=s.commitment, created_by=pool[0],
                 snapshot=eventstore.snapshot_dump(s), snapshot_version=s.version, result=s.result.to_dict(),
                 ended_at=now) for s in batch])
        seats = []
        for game, s in zip(games, batch, strict=True):
            for seat, player in enumerate(rng.sample(pool, s.seats)):
                seats.append(Seat(game=game, seat=seat, player=player))
        Seat.objects.bulk_create(seats)
        ids.extend(g.pk for g in games)
    return ids


def worker_rss(count: int, checkpoints: list[int], timeout: float) -> dict:
    import psutil

    from ratings.models import RatingEntry
    from ratings.tasks import ratings_apply_game

    ids = synth_ended_games(count, 60)
    queue = f"bench-rss-{os.getpid()}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "goat.settings", "LOG_LEVEL": "WARNING"}
    celery = str(Path(sys.executable).with_name("celery"))
    worker = subprocess.Popen([celery, "-A", "goat", "worker", "--pool", "solo", "-Q", queue, "--loglevel", "WARNING",
                               "--without-gossip", "--without-mingle", "--without-heartbeat"],
                              cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        process = psutil.Process(worker.pid)
        sent = 0
        rss = {}
        started = time.perf_counter()
        for checkpoint in checkpoints:
            for gid in ids[sent:checkpoint]:
                ratings_apply_game.apply_async(args=[gid], queue=queue)
            sent = checkpoint
            deadline = time.monotonic() + timeout
            while RatingEntry.objects.filter(game_id__in=ids[:checkpoint]).values("game_id").distinct().count() \
                    < checkpoint:
                if worker.poll() is not None:
                    raise SystemExit("the Celery worker exited")
                if time.monotonic() > deadline:
                    raise SystemExit(f"the worker did not apply {checkpoint} games within {timeout} s")
                time.sleep(0.5)
            rss[checkpoint] = process.memory_info().rss
        elapsed = time.perf_counter() - started
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
    first, last = checkpoints[0], checkpoints[-1]
    ratio = rss[last] / rss[first]
    return {
        "games": count, "broker": os.environ.get("CELERY_BROKER_URL", "filesystem://").split("://")[0],
        **{f"rss_mb_at_{k}": round(v / 2**20, 1) for k, v in rss.items()},
        "games_per_s": round(count / elapsed, 1),
        "ratio": round(ratio, 3), "checkpoints": checkpoints, "target": f"<= {RSS_TARGET}", "pass": ratio <= RSS_TARGET,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", default="leaderboard,rebuild,worker")
    parser.add_argument("--quick", action="store_true", help="small sizes (CI smoke)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    parts = set(args.part.split(","))
    url = use_database("bench.bench_settings")
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.bench_settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    q = args.quick
    figures: dict = {"bench": "scaling", "database": "postgresql" if is_postgres_url(url) else "sqlite", "quick": q}
    # Order matters: the rebuild replays every game in the database, so it runs before the other
    # parts add theirs (the leaderboard's synthetic games have no events).
    if "rebuild" in parts:
        figures["rebuild"] = rebuild(20 if q else 200, 1 if q else 3)
    if "worker" in parts:
        figures["worker"] = (worker_rss(300, [100, 200, 300], 300) if q
                             else worker_rss(10_000, [1_000, 5_000, 10_000], 1800))
    if "leaderboard" in parts:
        figures["leaderboard"] = leaderboard(10_000, 100_000 if q else 1_000_000, 5 if q else 20)
    lines = [f"scaling on {figures['database']}"]
    lb = figures.get("leaderboard")
    if lb is not None and "skipped" in lb:
        lines.append(f"  (b) leaderboard: skipped: {lb['skipped']}")
    elif lb is not None:
        lines.append(f"  (b) leaderboard {lb['small_entries']:,} -> {lb['large_entries']:,} ledger rows: page 1 "
                     f"{lb['small_page1_ms']} -> {lb['large_page1_ms']} ms (x{lb['page1_ratio']}), last page "
                     f"{lb['small_last_page_ms']} -> {lb['large_last_page_ms']} ms (x{lb['last_page_ratio']}), "
                     f"target {lb['target']}")
    rb = figures.get("rebuild")
    if rb is not None:
        lines.append(f"  (c) ratings_rebuild: {rb['games']} games, {rb['events']} events in {rb['rebuild_seconds']} s "
                     f"= {rb['rebuild_events_per_s']:,} ev/s (in-memory replay {rb['replay_events_per_s']:,} ev/s, "
                     f"x{rb['ratio_rebuild_to_replay']}); "
                     f"100k games projected {rb['projected_100k_games_seconds']:,} s")
    wk = figures.get("worker")
    if wk is not None:
        rss = ", ".join(f"{k}: {wk[f'rss_mb_at_{k}']} MB" for k in wk["checkpoints"])
        lines.append(f"  (d) worker RSS ({wk['broker']} broker) {rss}; ratio {wk['ratio']} (target {wk['target']}), "
                     f"{wk['games_per_s']} games/s")
    emit(figures, args.json, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
