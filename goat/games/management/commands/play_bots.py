"""``manage.py play_bots``: the computer plays for ordinary accounts (stand-ins, docs/computer.md) in
their games, through goat.games.services: ``goat.games.computer.stand_ins_play``."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from goat.engine.computer import LEVELS
from goat.games.computer import STAND_IN_PREFIX, stand_ins_play


class Command(BaseCommand):
    help = ("The computer plays, at --level (default random), for the users whose username starts with "
            "--prefix (or --all players) in waiting/running games, through the services (the real write path).")

    def add_arguments(self, parser):
        parser.add_argument("--prefix", default=STAND_IN_PREFIX,
                            help=f"Usernames starting with this are played by the computer "
                                 f"(default: {STAND_IN_PREFIX}).")
        parser.add_argument("--all", action="store_true", dest="everyone",
                            help="The computer plays for every player (the computer players' seats play themselves).")
        parser.add_argument("--games", nargs="+", type=int, metavar="ID", help="Only these games.")
        parser.add_argument("--level", choices=LEVELS, default="random",
                            help="The computer player's level that chooses the moves (default: random).")
        parser.add_argument("--until-done", action="store_true",
                            help="Keep going (waiting for others' moves) until no chosen game is waiting or running.")
        parser.add_argument("--max-moves", type=int, default=None, help="Stop after this many moves.")
        parser.add_argument("--seed", type=int, default=None, help="Random seed (reproducible choices).")

    def handle(self, *args, prefix, everyone, games, level, until_done, max_moves, seed, **options):
        if max_moves is not None and max_moves < 0:
            raise CommandError("--max-moves must be at least 0")
        bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(total=max_moves, unit="move", desc="bots")
        try:
            moves = stand_ins_play(prefix=prefix, everyone=everyone, game_ids=games, level=level,
                                   until_done=until_done, max_moves=max_moves, seed=seed,
                                   on_move=(bar.update if bar else None))
        finally:
            if bar is not None:
                bar.close()
        self.stdout.write(f"{moves} moves played")
