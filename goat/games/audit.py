"""Replay audit services: store a game's verification outcome, record who looked at hidden information.

Used by the admin (goat.games.admin), the ``verify_games`` command and the nightly task
(goat.audit_tasks). The REST API calls ``audit_record_hidden_view`` when an auditor reads a running
game's unredacted events or full state.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.utils import timezone

from goat.games import access
from goat.games.models import Game, GameStatus, HiddenInfoView
from goat.games.verification import Verification, game_verify

logger = logging.getLogger(__name__)

#: the permission that the replay, verify and export views require
AUDIT_PERMISSION = access.AUDIT_PERMISSION


def audit_record_hidden_view(*, user, game: Game, what: str) -> HiddenInfoView | None:
    """Record that ``user`` saw ``what`` of ``game``'s hidden information (hands, bazaar).

    Only a RUNNING game's hidden information is secret (docs/api.md "Events and what is hidden":
    nothing is redacted once a game ended, and a waiting game has nothing dealt), so other games record
    nothing and return ``None``.
    """
    if game.status != GameStatus.RUNNING:
        return None
    return HiddenInfoView.objects.create(user=user, game=game, what=what)


def game_verify_record(*, game: Game) -> Verification:
    """Run ``game_verify`` and store the outcome on the game (``verified_at``/``verification_ok``/
    ``verification_detail``). A mismatch is logged at ERROR with the game id and the detail."""
    outcome = game_verify(game=game)
    detail = outcome.detail
    if outcome.seq is not None:
        detail = f"first discrepancy at seq {outcome.seq}: {detail}"
    game.verified_at = timezone.now()
    game.verification_ok = outcome.ok
    game.verification_detail = "" if outcome.ok else detail
    Game.objects.filter(pk=game.pk).update(verified_at=game.verified_at, verification_ok=game.verification_ok,
                                           verification_detail=game.verification_detail)
    if not outcome.ok:
        logger.error("verification of game %s failed: %s", game.pk, detail)
    return outcome


def games_verify(*, games) -> list[tuple[Game, Verification]]:
    return [(game, game_verify_record(game=game)) for game in games]


def games_ended_since(*, since) -> list[Game]:
    return list(Game.objects.filter(ended_at__gte=since).order_by("pk"))


def games_verify_recent(*, days: float = 1, now=None) -> tuple[int, int]:
    """Verify every game that ended in the last ``days``; returns ``(verified, failed)``."""
    now = now or timezone.now()
    results = games_verify(games=games_ended_since(since=now - timedelta(days=days)))
    return len(results), sum(not v.ok for _g, v in results)
