"""``manage.py rebuild_games``: recompute every game's snapshot and read model from its events."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand
from tqdm import tqdm

from goat.games.models import Game
from goat.games.services import game_rebuild_read_model


class Command(BaseCommand):
    help = ("Recompute the snapshot and read model (status, version, round, turn, deadline, result) of "
            "games from their events alone: all games, or those whose ids are given.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("game_ids", nargs="*", type=int, help="only these games")

    def handle(self, *args, **options) -> None:
        ids = options["game_ids"] or list(Game.objects.order_by("pk").values_list("pk", flat=True))
        for game_id in tqdm(ids, desc="games", unit="game", disable=not sys.stdout.isatty()):
            game_rebuild_read_model(game_id=game_id)
        self.stdout.write(f"rebuilt {len(ids)} game(s) from their events")
