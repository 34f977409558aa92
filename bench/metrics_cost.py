"""What the metrics add to one move, in CPU time, against the move's own web CPU in the same run.

    python bench/metrics_cost.py [--n 20000] [--json]

In a fresh process with ``PROMETHEUS_MULTIPROC_DIR`` set (the production mode: every value is a
memory-mapped file), times what a move request adds: the request middleware's work (the route label,
one counter ``inc`` and one histogram ``observe``) and the command counter of ``services``, i.e.
exactly the calls goat makes, on the labels a move has. The baseline is a move's web CPU: the CPU
time of a whole ``POST /api/games/{id}/moves/`` through Django's test client (every middleware, DRF,
the engine and the event store on a throwaway SQLite file) measured in the same process. Reported:
microseconds per move of each, and their ratio (the share of a move's web CPU the metrics take).
A CPU-time figure, so it holds on a machine busy with other work, where a requests/s A/B does not.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20000, help="metric updates timed")
    parser.add_argument("--moves", type=int, default=300, help="moves timed for the baseline")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    scratch = tempfile.mkdtemp(prefix="goat-metrics-cost-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(Path(scratch) / "metrics")
    os.environ["GOAT_DATA_DIR"] = scratch
    os.environ["DATABASE_URL"] = f"sqlite:///{scratch}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.bench_settings")
    import django
    from _common import emit

    django.setup()
    from goat.web.observe import metrics
    from goat.web.observe.metrics_http import MetricsMiddleware

    class _Match:
        route = "api/games/<id:game_id>/moves/"

    class _Request:
        method = "POST"
        resolver_match = _Match()

    class _Response:
        status_code = 201

    response = _Response()
    middleware = MetricsMiddleware(lambda request: response)
    request = _Request()
    for _ in range(1000):  # warm: the label children and their files exist
        middleware(request)
        with metrics.command_counted("play_tile"):
            pass
    started = time.process_time()
    for _ in range(args.n):
        middleware(request)
        with metrics.command_counted("play_tile"):
            pass
    metrics_us = (time.process_time() - started) / args.n * 1e6

    move_us = _move_cpu_us(args.moves)
    f = {"metrics_us_per_move": round(metrics_us, 2), "move_web_cpu_us": round(move_us, 1),
         "share": round(metrics_us / move_us, 4), "n": args.n, "moves": args.moves}
    emit(f, args.json, [
        f"metrics per move: {f['metrics_us_per_move']} us CPU (middleware + command counter, multiprocess files)",
        f"a move's web CPU: {f['move_web_cpu_us']} us (Django test client, SQLite, {args.moves} moves)",
        f"share: {f['share'] * 100:.2f}% of a move's web CPU",
    ])
    return 0


def _move_cpu_us(count: int) -> float:
    """CPU time of one move request through the whole Django stack (test client, in this process)."""
    from django.core.management import call_command
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from goat.engine import legal_moves
    from goat.engine.tiles import tile_str
    from goat.games import eventstore, services
    from goat.games.models import Game

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    User = get_user_model()
    players = [User.objects.create_user(username=f"cost{i}", password="x") for i in range(2)]
    headers = [f"Token {Token.objects.create(user=p).key}" for p in players]
    client = Client()
    spent, timed = 0.0, 0
    while timed < count:
        game = services.game_create(player=players[0], ruleset="goat-classic", seats=2, options={"move_time": 0}).game
        services.game_join(game_id=game.pk, player=players[1])
        while timed < count:
            game = Game.objects.get(pk=game.pk)
            if game.status != "running":
                break
            state = eventstore.state_load(game)
            moves = legal_moves(state)
            if not moves:
                break
            tile, end = moves[0]
            body = {"tile": tile_str(tile), **({"end": end} if end else {})}
            started = time.process_time()
            answer = client.post(f"/api/games/{game.pk}/moves/", body, content_type="application/json",
                                 HTTP_AUTHORIZATION=headers[state.turn], HTTP_IF_MATCH=f'"{state.version}"')
            spent += time.process_time() - started
            if answer.status_code != 201:
                break
            timed += 1
    return spent / max(timed, 1) * 1e6


if __name__ == "__main__":
    sys.exit(main())
