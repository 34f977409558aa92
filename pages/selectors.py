"""Reads of the pages that gather several apps (home, player, game): each calls the selectors of the
app that owns the data, so what a page shows is what the API shows, redaction included.

Every read is a bounded number of queries whatever the data size (tests/pages/test_queries.py).
"""

from __future__ import annotations

from typing import Any

from goat.games import selectors as games
from goat.games.models import Game
from ratings import selectors as ratings
from tournaments import selectors as tournaments
from tournaments.models import TournamentStatus

HOME_TOURNAMENTS = 10
HOME_UPCOMING = 5
HOME_TOP = 10
HOME_GAMES = 10


def game_summary(game: Game) -> dict[str, Any]:
    """A game for a list: its players in seat order, each marked winner or goat once it has ended
    (``seat_set`` prefetched with players: games.seats_prefetch)."""
    result = game.result or {}
    goats, winners = set(result.get("goats", ())), set(result.get("winners", ()))
    return {
        "id": game.pk, "ruleset": game.ruleset, "status": game.status, "created_at": game.created_at,
        "ended_at": game.ended_at, "reason": result.get("reason"),
        "seats": [{"seat": s.seat, "player": s.player.get_username(), "goat": s.seat in goats,
                   "winner": s.seat in winners} for s in game.seat_set.all()],
    }


def home() -> dict[str, Any]:
    """What is on now: running tournaments, the next scheduled ones, the top of the main board (all
    rulesets, all time) and the games that ended last."""
    return {
        "running": list(tournaments.tournament_list(status=TournamentStatus.RUNNING)[:HOME_TOURNAMENTS]),
        "upcoming": list(tournaments.tournament_list(status=TournamentStatus.SCHEDULED)
                         .order_by("starts_at", "id")[:HOME_UPCOMING]),
        "top": ratings.ranked(list(ratings.rating_board(period="all", ruleset=None)[0:HOME_TOP]), 0),
        "games": [game_summary(g) for g in games.games_recent_ended(limit=HOME_GAMES)],
    }
