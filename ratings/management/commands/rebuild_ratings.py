"""``manage.py rebuild_ratings``: recompute ledger, skill, chips and leaderboards from game events alone."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand
from tqdm import tqdm

from ratings.services import ratings_rebuild


class Command(BaseCommand):
    help = ("Rebuild the rating ledger, skill ratings, chip stakes/payouts/balances (initial grants kept) "
            "and the leaderboards from the game events alone.")

    def handle(self, *args, **options) -> None:
        interactive = sys.stdout.isatty()

        def progress(games):
            return tqdm(games, desc="games", unit="game", disable=not interactive)

        summary = ratings_rebuild(progress=progress)
        self.stdout.write(f"rebuilt ratings from {summary['games']} games ({summary['applied']} ended)")
