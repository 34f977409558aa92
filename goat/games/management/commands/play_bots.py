"""``manage.py play_bots``: random legal moves for bot players, through goat.games.services."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from goat.games.bots import bots_play


class Command(BaseCommand):
    help = ("Play random legal moves for bots (users whose username starts with --prefix, or --all players) "
            "in waiting/running games, through the services (the real write path).")

    def add_arguments(self, parser):
        parser.add_argument("--prefix", default="bot", help="Usernames starting with this are bots (default: bot).")
        parser.add_argument("--all", action="store_true", dest="everyone", help="Every player is a bot.")
        parser.add_argument("--games", nargs="+", type=int, metavar="ID", help="Only these games.")
        parser.add_argument("--until-done", action="store_true",
                            help="Keep going (waiting for others' moves) until no chosen game is waiting or running.")
        parser.add_argument("--max-moves", type=int, default=None, help="Stop after this many moves.")
        parser.add_argument("--seed", type=int, default=None, help="Random seed (reproducible choices).")

    def handle(self, *args, prefix, everyone, games, until_done, max_moves, seed, **options):
        if max_moves is not None and max_moves < 0:
            raise CommandError("--max-moves must be at least 0")
        bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(total=max_moves, unit="move", desc="bots")
        try:
            moves = bots_play(prefix=prefix, everyone=everyone, game_ids=games, until_done=until_done,
                              max_moves=max_moves, seed=seed, on_move=(bar.update if bar else None))
        finally:
            if bar is not None:
                bar.close()
        self.stdout.write(f"{moves} moves played")
