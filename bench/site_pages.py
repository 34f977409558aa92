"""Server time of every page of the site (docs/site.md's page map) at 10,000 players and 100,000 games.

    python bench/site_pages.py [--players 10000] [--games 100000] [--with-events 1000] [--repeat 30] [--json]
    DATABASE_URL=postgres://USER@127.0.0.1:PORT/goat python bench/site_pages.py     # the figure (PostgreSQL)
    python bench/site_pages.py --quick                                                # a smoke run (SQLite)

The data (written once per run into the database ``DATABASE_URL`` names; a throwaway SQLite file
without it):

- players: ``--players`` accounts (bulk INSERT; no password);
- games: ``--games`` ended games. The engine simulates a pool of distinct games (goat-classic with 2
  and 4 seats, domino-3rounds with 2; seeds, deals, moves, timeouts and resignations as real games
  have them); each stored game is one of them with its seats given to players drawn at random, so its
  row carries the real result, seeds, commitment and the engine snapshot of its final state with those
  players' names (``snapshot_dump``), its Seat rows and its rating ledger rows (``RatingEntry``: the
  result's rating points, goat flag and reason, as the ledger projection writes them). Games end at
  times spread over the last year. Rows are written with ``bulk_create`` in batches;
- events: the ``--with-events`` most recent games also get their whole event stream (the simulated log
  with their players' names, hash chain recomputed with ``eventstore.chain_hash``, ``last_hash`` set),
  so their page's replay and fairness panel read and verify real streams. The other games' pages
  are not opened: a page reads only the events of the one game it shows, through the ``(game, seq)``
  index, so the table's size enters as an index depth. (Streams for all 100,000 games would be about
  25 million rows, hours of hashing on this machine for no different read.)
- boards and skill: ``ratings.leaderboards.leaderboards_refresh`` recomputes the rating boards (all time,
  this month, this week) from the ledger and ranks them, as the periodic task does; a ``SkillRating``
  row per player and ruleset played;
- tournaments: 40 scheduled and 20 finished ones (``tournament_create``) with 64 registered players
  each;
- one running game, made through the services (``game_create`` and ``game_join``).

Then every page of the page map is requested through Django's test client in this process (the
server's time: URL routing, middleware, view, selectors, template; no network): ``--repeat`` times
after three warm-up requests, p50 and p99 in ms, and the number of SQL queries of one request.
A page not on this branch yet answers 404 and is reported as missing, never timed. The verdict is
p99 <= 150 ms (docs/site.md).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import emit, is_postgres_url, percentile, use_database  # noqa: E402

TARGET_MS = 150.0
BATCH = 2000


def _pool(size: int, seed: int) -> list[list[dict]]:
    from goat.engine.simulate import simulate_game

    rng = random.Random(seed)
    kinds = [("goat-classic", 2), ("goat-classic", 4), ("domino-3rounds", 2)]
    return [simulate_game(rng, ruleset=kinds[i % 3][0], seats=kinds[i % 3][1]) for i in range(size)]


def _players(count: int) -> list[tuple[int, str]]:
    from django.contrib.auth import get_user_model

    User = get_user_model()
    now = datetime.now(UTC)
    for start in range(0, count, BATCH):
        User.objects.bulk_create([User(username=f"player{i:05d}", password="!", date_joined=now)
                                  for i in range(start, min(count, start + BATCH))])
    return list(User.objects.filter(username__startswith="player").order_by("pk").values_list("pk", "username"))


def _renamed(log: list[dict], names: list[str]) -> list[dict]:
    """``log`` with seat ``s`` taken by ``names[s]`` (the deal depends on the seeds, not on names)."""
    out = []
    for event in log:
        if event["type"] == "seat_taken":
            event = {**event, "data": {**event["data"], "player": names[event["data"]["seat"]]}}
        out.append(event)
    return out


def _games(players: list[tuple[int, str]], count: int, with_events: int, pool: list[list[dict]], seed: int) -> dict:
    from dataclasses import replace

    from goat.engine.rules import evolve_all
    from goat.games import eventstore
    from goat.games.models import Game, GameEvent, Seat
    from ratings.models import REASONS, RatingEntry

    rng = random.Random(seed)
    states = [evolve_all(log) for log in pool]
    now = datetime.now(UTC)
    creator = players[0][0]
    events_written = 0
    for start in range(0, count, BATCH):
        size = min(count, start + BATCH) - start
        picks = [(start + i) % len(pool) for i in range(size)]
        seatings = [rng.sample(players, states[k].seats) for k in picks]
        # games numbered in time order: game n ends n/count of a year after the first
        ended = [now - timedelta(days=365) + timedelta(days=365) * (start + i) / count for i in range(size)]
        rows = []
        for k, seated, at in zip(picks, seatings, ended, strict=True):
            state = replace(states[k], players=tuple(name for _pk, name in seated))
            rows.append(Game(ruleset=state.ruleset, options=state.options.to_dict(), seats=state.seats,
                             status=state.status, version=state.version, round=state.round_no,
                             server_seed=state.server_seed or "", server_seed_commitment=state.commitment,
                             snapshot=eventstore.snapshot_dump(state), snapshot_version=state.version,
                             result=state.result.to_dict() if state.result else None, created_by_id=creator,
                             ended_at=at))
        games = Game.objects.bulk_create(rows)
        if start % 20_000 == 0:
            print(f"  games {start:,} / {count:,}", file=sys.stderr, flush=True)
        seats, entries, events = [], [], []
        for i, (game, k, seated, at) in enumerate(zip(games, picks, seatings, ended, strict=True)):
            state = states[k]
            seats.extend(Seat(game=game, seat=s, player_id=pk) for s, (pk, _name) in enumerate(seated))
            result = state.result
            if result is not None and result.reason in REASONS:
                entries.extend(RatingEntry(game=game, player_id=pk, seat=s, points=result.rating_points[s],
                                           reason=REASONS[result.reason], ruleset=state.ruleset,
                                           goat=s in result.goats, at=at) for s, (pk, _name) in enumerate(seated))
            if start + i >= count - with_events:
                prev = eventstore.GENESIS_HASH
                for event in _renamed(pool[k], [name for _pk, name in seated]):
                    shaped = {"seq": event["seq"], "type": event["type"], "at": event["at"], "seat": event["seat"],
                              "data": event["data"]}
                    digest = eventstore.chain_hash(prev, shaped)
                    events.append(GameEvent(game=game, seq=event["seq"], type=event["type"], seat=event["seat"],
                                            data=event["data"], at=datetime.fromisoformat(event["at"]),
                                            prev_hash=prev, hash=digest))
                    prev = digest
                Game.objects.filter(pk=game.pk).update(last_hash=prev)
        Seat.objects.bulk_create(seats)
        RatingEntry.objects.bulk_create(entries)
        GameEvent.objects.bulk_create(events, batch_size=BATCH)
        events_written += len(events)
    return {"games": count, "events": events_written}


def _skill(players: list[tuple[int, str]]) -> None:
    from django.db.models import Count

    from ratings.models import RatingEntry, SkillRating

    played = RatingEntry.objects.values("player", "ruleset").annotate(games=Count("id")).order_by()
    names = dict(players)
    rng = random.Random(3)
    rows = []
    for row in played.iterator(chunk_size=5000):
        mu, sigma = rng.gauss(25, 3), max(1.0, 8.33 - row["games"] * 0.1)
        rows.append(SkillRating(player_id=row["player"], ruleset=row["ruleset"], mu=mu, sigma=sigma,
                                ordinal=mu - 3 * sigma, games=row["games"], username=names[row["player"]]))
    SkillRating.objects.bulk_create(rows, batch_size=BATCH)


def _tournaments(players: list[tuple[int, str]]) -> list[int]:
    from django.contrib.auth import get_user_model

    from tournaments.models import Registration, Tournament, TournamentStatus
    from tournaments.services import tournament_create

    director = get_user_model().objects.create_user("director", password="x" * 12, is_staff=True)
    rng = random.Random(4)
    ids = []
    for i in range(60):
        t = tournament_create(created_by=director, name=f"Cup {i}", ruleset="goat-classic", options={},
                              format="swiss", rounds=5, table_size=4, max_players=64, entry_fee=0,
                              starts_at=datetime.now(UTC) + timedelta(days=1 + i), duration_minutes=60)
        Registration.objects.bulk_create([Registration(tournament=t, player_id=pk)
                                          for pk, _name in rng.sample(players, 64)])
        if i >= 40:
            Tournament.objects.filter(pk=t.pk).update(status=TournamentStatus.FINISHED)
        ids.append(t.pk)
    return ids


def _running_game(players: list[tuple[int, str]]) -> int:
    from django.contrib.auth import get_user_model

    from goat.games import services

    User = get_user_model()
    first, second = User.objects.get(pk=players[1][0]), User.objects.get(pk=players[2][0])
    game = services.game_create(player=first, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=game.pk, player=second)
    return game.pk


def load(players: int, games: int, with_events: int, pool_size: int) -> dict:
    from django.db import connection

    from ratings.leaderboards import leaderboards_refresh

    started = time.perf_counter()

    def step(what: str) -> None:
        print(f"  {time.perf_counter() - started:7.1f} s  {what}", file=sys.stderr, flush=True)

    accounts = _players(players)
    step("players")
    pool = _pool(pool_size, seed=11)
    step("simulated pool")
    written = _games(accounts, games, with_events, pool, seed=12)
    step("games, seats, ledger, events")
    leaderboards_refresh()
    step("rating boards")
    _skill(accounts)
    tournament_ids = _tournaments(accounts)
    running = _running_game(accounts)
    step("skill, tournaments, a running game")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return {"players": len(accounts), **written, "pool": pool_size, "tournaments": tournament_ids,
            "running_game": running, "load_seconds": round(time.perf_counter() - started, 1)}


def pages(data: dict) -> dict[str, str]:
    """The page map (docs/site.md "The pages"), with a real object behind each path."""
    from django.db.models import Count

    from goat.games.models import Game, GameEvent
    from ratings.models import RatingEntry

    # a player with the median number of games, and the latest ended game with its event stream
    counts = list(RatingEntry.objects.values("player__username").annotate(n=Count("id")).order_by("n")
                  .values_list("player__username", "n"))
    player = counts[len(counts) // 2][0]
    ended = Game.objects.filter(pk__in=GameEvent.objects.values("game").distinct(),
                                status__in=("finished", "interrupted")).exclude(pk=data["running_game"]).order_by("-pk")
    finished_tournament = data["tournaments"][-1]
    return {
        "/": "/",
        "/players/{username}/": f"/players/{player}/",
        "/games/{id}/ (running)": f"/games/{data['running_game']}/",
        "/games/{id}/ (ended)": f"/games/{ended.first().pk}/",
        "/tournaments/": "/tournaments/",
        "/tournaments/{id}/": f"/tournaments/{finished_tournament}/",
        "/leaderboards/": "/leaderboards/",
        "/play/": "/play/",
    }


def measure(paths: dict[str, str], repeat: int) -> dict[str, dict]:
    from django.db import connection
    from django.test import Client

    client = Client()
    counted: list[str] = []

    def counting(execute, sql, params, many, context):
        counted.append(sql)
        return execute(sql, params, many, context)

    out = {}
    for name, path in paths.items():
        first = client.get(path)
        if first.status_code == 404:
            out[name] = {"path": path, "status": 404, "missing": True}
            continue
        for _ in range(2):
            client.get(path)
        counted.clear()
        with connection.execute_wrapper(counting):
            client.get(path)
        queries = len(counted)
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            response = client.get(path)
            samples.append((time.perf_counter() - started) * 1000)
        p99 = percentile(samples, 99)
        out[name] = {"path": path, "status": response.status_code, "queries": queries,
                     "p50_ms": round(percentile(samples, 50), 1), "p99_ms": round(p99, 1),
                     "met": response.status_code == 200 and p99 <= TARGET_MS}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--with-events", type=int, default=1_000, help="the most recent games that get their events")
    parser.add_argument("--pool", type=int, default=300, help="distinct simulated games the stored ones copy")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="1,000 players, 5,000 games (a smoke run)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.games, args.with_events, args.pool, args.repeat = 1_000, 5_000, 200, 60, 10
    url = use_database("goat.settings")
    os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")  # the running game's post-commit tasks, in process
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    data = load(args.players, args.games, args.with_events, args.pool)
    results = measure(pages(data), args.repeat)
    figures = {"bench": "pages", "database": "postgresql" if is_postgres_url(url) else "sqlite",
               "target_ms": TARGET_MS, "data": {k: v for k, v in data.items() if k != "tournaments"}, "pages": results}
    lines = [f"pages on {figures['database']}: {data['players']:,} players, {data['games']:,} games "
             f"({data['events']:,} events of the {args.with_events:,} latest), loaded in {data['load_seconds']} s"]
    for name, r in results.items():
        if r.get("missing"):
            lines.append(f"  {name:28} missing (404 on this branch)")
        else:
            lines.append(f"  {name:28} {r['status']}  p50 {r['p50_ms']:7.1f} ms  p99 {r['p99_ms']:7.1f} ms  "
                         f"{r['queries']:3d} queries  {'met' if r['met'] else 'MISSED'} (<= {TARGET_MS:.0f} ms)")
    emit(figures, args.json, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
