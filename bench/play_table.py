"""The play page's table: what the table model costs the server, against the game view a client of the
API reads for the same update.

    python bench/play_table.py [--repeat 200] [--json]

The play page keeps its table current by asking for the table model (GET /play/{id}/table/, the one
presenter goat.games.table.table_model: seats, line, notes, result, scoresheet, all in the reader's
language) each time the game stream says the game moved on; an API client reads the game view (GET
/api/games/{id}/) for the same update. Both are read for the same seated player of a four-seat
goat-classic game (``limit`` 5000, so it does not end) through Django's test client, alternately, so
that the machine's noise falls on both, at two points of the game: early (move 20) and late (move
300, many rounds on the scoresheet). Reported: the model's median over the view's (ratio), early and
late; and the late model over the early one (does the model grow with the game?). No target is set:
the figures are what the play page's extra request costs.

Runs on the configured database (``DATABASE_URL``); without one, on a throwaway SQLite file.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import emit, interleaved, use_database  # noqa: E402

use_database()

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from rest_framework import throttling  # noqa: E402

SEATS = 4


def table_at(moves: int, seed: int) -> tuple[int, list]:
    """A four-seat goat-classic game with ``moves`` random legal moves played; its id and its players."""
    from django.contrib.auth import get_user_model

    from goat import engine
    from goat.engine.tiles import tile_str
    from goat.games import eventstore, services
    from goat.games.models import Game

    rng = random.Random(seed)
    User = get_user_model()
    users = [User.objects.create_user(username=f"table-{seed}-{moves}-{i}", password="x" * 12) for i in range(SEATS)]
    game = services.game_create(player=users[0], ruleset="goat-classic", seats=SEATS, options={"limit": 5000}).game
    for user in users[1:]:
        services.game_join(game_id=game.pk, player=user)
    for _ in range(moves):
        state = eventstore.state_load(Game.objects.get(pk=game.pk))
        assert not state.ended, "the game ended before its moves were played"
        tile, end = rng.choice(engine.legal_moves(state))
        services.game_play_tile(game_id=game.pk, player=users[state.turn], tile=tile_str(tile), end=end,
                                expected_version=state.version)
    return game.pk, users


def reads(game_id: int, user) -> dict:
    client = Client()
    client.force_login(user)

    def view():
        assert client.get(f"/api/games/{game_id}/").status_code == 200

    def model():
        assert client.get(f"/play/{game_id}/table/").status_code == 200

    return {"view": view, "model": model}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="reads of each kind at each point")
    parser.add_argument("--seed", type=int, default=51)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    settings.DEBUG = False
    throttling.SimpleRateThrottle.allow_request = lambda self, request, view: True  # measure work, not limits
    call_command("migrate", verbosity=0, interactive=False)
    figures: dict = {"bench": "play_table", "database": connection.vendor, "repeat": args.repeat}
    for label, moves in (("early", 20), ("late", 300)):
        game_id, users = table_at(moves, args.seed)
        fns = reads(game_id, users[0])
        interleaved(fns, 10)  # warm-up
        medians = interleaved(fns, args.repeat)
        figures[f"{label}_view_ms"] = round(medians["view"] * 1000, 3)
        figures[f"{label}_model_ms"] = round(medians["model"] * 1000, 3)
        figures[f"{label}_ratio"] = round(medians["model"] / medians["view"], 3)
    figures["late_early_model_ratio"] = round(figures["late_model_ms"] / figures["early_model_ms"], 3)
    figures["mean_ratio"] = round(statistics.mean([figures["early_ratio"], figures["late_ratio"]]), 3)
    emit(figures, args.json, [
        f"database: {figures['database']}",
        f"early (move 20): model {figures['early_model_ms']} ms, view {figures['early_view_ms']} ms, "
        f"ratio {figures['early_ratio']}",
        f"late (move 300): model {figures['late_model_ms']} ms, view {figures['late_view_ms']} ms, "
        f"ratio {figures['late_ratio']}",
        f"model late / early: {figures['late_early_model_ratio']}",
    ])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
