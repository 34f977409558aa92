"""``manage.py rebuild_standings [ID ...]``: recompute tournament standings from their games and byes."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from tournaments.models import Tournament
from tournaments.services import standings_rebuild


class Command(BaseCommand):
    help = "Recompute the standings of the given tournaments (default: all) from registrations, byes and games."

    def add_arguments(self, parser):
        parser.add_argument("ids", nargs="*", type=int, help="Tournament ids (default: every tournament).")

    def handle(self, *args, ids, **options):
        ids = ids or list(Tournament.objects.order_by("id").values_list("pk", flat=True))
        for pk in ids:
            rows = standings_rebuild(tournament_id=pk)
            self.stdout.write(f"tournament {pk}: {rows} standings")
