"""``python manage.py verify_games [--since-days N | --all] [ID ...]``: replay-verify stored games.

Prints one line per game (``game <id>: ok`` or ``game <id>: FAILED at seq N: ...``), stores the
outcome on the game (the admin's verification flag) and exits with status 1 if any game failed.
Without arguments it verifies the games that ended in the last day, like the nightly task.
"""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from goat.games import audit
from goat.games.models import Game


class Command(BaseCommand):
    help = "Verify games (hash chain, deals, replay); one line per game; exit 1 if any failed."

    def add_arguments(self, parser):
        parser.add_argument("ids", nargs="*", type=int, metavar="ID", help="game ids to verify")
        parser.add_argument("--since-days", type=float, default=None,
                            help="games that ended in the last N days (default 1 without ids or --all)")
        parser.add_argument("--all", action="store_true", help="every game that has events")

    def handle(self, *args, ids, since_days, all, **options):
        if ids:
            qs = Game.objects.filter(pk__in=ids)
            missing = sorted(set(ids) - set(qs.values_list("pk", flat=True)))
            if missing:
                raise CommandError(f"no such game: {', '.join(map(str, missing))}")
        elif all:
            qs = Game.objects.filter(version__gt=0)
        else:
            days = 1 if since_days is None else since_days
            qs = Game.objects.filter(ended_at__gte=timezone.now() - timedelta(days=days))
        failed = total = 0
        for game in qs.order_by("pk").iterator():
            outcome = audit.game_verify_record(game=game)
            total += 1
            flags = f"hash_chain={_yn(outcome.hash_chain)} deals={_yn(outcome.deals)} replay={_yn(outcome.replay)}"
            if outcome.ok:
                self.stdout.write(f"game {game.pk}: ok ({game.status}, {game.version} events) {flags}")
            else:
                failed += 1
                where = f" at seq {outcome.seq}" if outcome.seq is not None else ""
                self.stdout.write(f"game {game.pk}: FAILED{where} {flags}: {outcome.detail}")
        self.stderr.write(f"{total} game(s) verified, {failed} failed")
        if failed:
            raise SystemExit(1)


def _yn(flag: bool) -> str:
    return "ok" if flag else "FAIL"
