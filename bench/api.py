"""Move submission through the API: does a move cost the same late in a game, and how close is it
to the cheapest possible write?

    python bench/api.py [--pairs 3] [--baseline 400] [--json]

1. Latency: pairs of long games (goat-classic with ``limit`` 5000, so they do not end) played through
   the API test client (POST /api/games/{id}/moves/ with If-Match, full middleware, token auth,
   throttles, the service's row lock, snapshot, engine, event append, and the response's game view).
   One game of a pair is played to move 299, the other to move 9; then their moves 300..319 and
   10..29 are timed alternately, one early, one late, so that the machine's noise falls on both.
   Median of the early moves against the late ones: target ratio <= 1.2.
2. Throughput: moves per second against a minimal Django view that does a single ORM INSERT into a
   tiny table, on the same database, through the same test client, in the same run: target >= 0.5.

Runs on the configured database (``DATABASE_URL``, e.g. PostgreSQL); without one, on a throwaway
SQLite file that is migrated first.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "goat.settings")
_TMP = None
if not os.environ.get("DATABASE_URL"):
    _TMP = tempfile.TemporaryDirectory(prefix="goat-bench-")
    os.environ["DATABASE_URL"] = f"sqlite:///{_TMP.name}/bench.sqlite3"
    os.environ.setdefault("GOAT_DATA_DIR", f"{_TMP.name}/goat-data")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, models  # noqa: E402
from django.http import JsonResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import include, path  # noqa: E402
from django.views.decorators.csrf import csrf_exempt  # noqa: E402
from rest_framework import throttling  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402


class BenchPing(models.Model):
    """The tiny table of the baseline (created and dropped by this script)."""

    n = models.IntegerField()

    class Meta:
        app_label = "goat"
        db_table = "bench_api_ping"


@csrf_exempt
def ping(request):
    BenchPing.objects.create(n=1)
    return JsonResponse({"ok": True}, status=201)


urlpatterns = [path("bench/ping/", ping), path("", include("goat.urls"))]


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


class LongGame:
    """A 2-seat goat-classic game (``limit`` 5000, so it does not end) played through the API test
    client; ``move()`` plays the next random legal move and returns its seconds (choosing the move is
    not timed). ``n`` is the number of moves made; a game that ever ends is replaced by a new one."""

    def __init__(self, clients: list, rng: random.Random):
        self.clients, self.rng = clients, rng
        self._new()

    def _new(self) -> None:
        body = {"ruleset": "goat-classic", "seats": 2, "options": {"limit": 5000}}
        self.gid = self.clients[0].post("/api/games/", body, format="json").json()["id"]
        assert self.clients[1].post(f"/api/games/{self.gid}/join/", {}, format="json").status_code == 200
        self.n = 0

    def move(self) -> float:
        from goat import engine
        from goat.engine.tiles import tile_str
        from goat.games import eventstore
        from goat.games.models import Game

        state = eventstore.state_load(Game.objects.get(pk=self.gid))
        while state.ended:  # keep the move index meaningful: start over
            self._new()
            state = eventstore.state_load(Game.objects.get(pk=self.gid))
        tile, end = self.rng.choice(engine.legal_moves(state))
        body = {"tile": tile_str(tile), "end": end}
        start = time.perf_counter()
        response = self.clients[state.turn].post(f"/api/games/{self.gid}/moves/", body, format="json",
                                                 HTTP_IF_MATCH=f'"{state.version}"')
        elapsed = time.perf_counter() - start
        assert response.status_code == 201, response.content
        self.n += 1
        return elapsed

    def advance_to(self, n: int, samples: list[float]) -> None:
        while self.n < n:
            samples.append(self.move())


def play_long_games(pairs: int, seed: int) -> tuple[list[float], list[float], list[float]]:
    """Moves 10..29 of one game and 300..319 of another, timed alternately (one early, one late), so
    that the machine's noise falls on both alike; ``pairs`` such pairs of games. Returns the early
    and late samples and every move's seconds (for the throughput)."""
    from django.contrib.auth import get_user_model

    rng = random.Random(seed)
    User = get_user_model()
    users = [User.objects.create_user(username=f"bench-{os.getpid()}-{seed}-{i}", password="x" * 12) for i in range(2)]
    clients = []
    for user in users:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
        clients.append(client)
    early, late, every = [], [], []
    for _ in range(pairs):
        young, old = LongGame(clients, rng), LongGame(clients, rng)
        old.advance_to(299, every)
        young.advance_to(9, every)
        for _ in range(20):
            early.append(young.move())
            late.append(old.move())
        every.extend(early[-20:] + late[-20:])
    return early, late, every


def baseline(count: int) -> list[float]:
    client = Client()
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        response = client.post("/bench/ping/", data=b"{}", content_type="application/json")
        samples.append(time.perf_counter() - start)
        assert response.status_code == 201
    return samples


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3, help="pairs of games (early, late) timed side by side")
    parser.add_argument("--baseline", type=int, default=400, help="baseline requests")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    settings.ROOT_URLCONF = __name__
    settings.DEBUG = False
    throttling.SimpleRateThrottle.allow_request = lambda self, request, view: True  # measure work, not limits
    call_command("migrate", verbosity=0, interactive=False)
    with connection.schema_editor() as editor:
        editor.create_model(BenchPing)
    try:
        baseline(50)  # warm-up
        early, late, all_moves = play_long_games(args.pairs, args.seed)
        base = baseline(args.baseline)
    finally:
        with connection.schema_editor() as editor:
            editor.delete_model(BenchPing)

    move_rate = len(all_moves) / sum(all_moves)
    base_rate = len(base) / sum(base)
    figures = {
        "database": connection.vendor,
        "moves": len(all_moves),
        "move_ms_median_10_29": round(median_ms(early), 3),
        "move_ms_median_300_319": round(median_ms(late), 3),
        "late_early_ratio": round(median_ms(late) / median_ms(early), 3),
        "late_early_target": "<= 1.2",
        "moves_per_s": round(move_rate, 1),
        "baseline_inserts_per_s": round(base_rate, 1),
        "baseline_ms_median": round(median_ms(base), 3),
        "throughput_ratio": round(move_rate / base_rate, 3),
        "throughput_target": ">= 0.5",
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"database: {figures['database']}")
        print(f"move latency, median of moves 10..29:   {figures['move_ms_median_10_29']:.2f} ms")
        print(f"move latency, median of moves 300..319: {figures['move_ms_median_300_319']:.2f} ms")
        print(f"  ratio late/early: {figures['late_early_ratio']:.3f} (target <= 1.2)")
        print(f"moves/s over {figures['moves']} moves: {figures['moves_per_s']:.1f}")
        print(f"baseline (one ORM INSERT view) requests/s: {figures['baseline_inserts_per_s']:.1f} "
              f"(median {figures['baseline_ms_median']:.2f} ms)")
        print(f"  ratio moves/baseline: {figures['throughput_ratio']:.3f} (target >= 0.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
