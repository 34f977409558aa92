"""Ratings selectors: the reads behind the profile, the rating ledger and the leaderboards.

Every read is an indexed lookup on a projection table (never a scan of the ledger): the profile reads
the player's ``ratings:all:*`` leaderboard row, the boards are read in index order and a row's rank
is its position in that order.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from .models import LeaderboardRow, RatingEntry, SkillRating
from .services import ALL_RULESETS, board_key, chips_balance


def player_rating_stats(*, player) -> dict[str, int]:
    """``rating`` (sum of the ledger), ``games_played`` (ended games with a ledger entry), ``goats``."""
    row = (LeaderboardRow.objects.filter(board=board_key("all", ALL_RULESETS), player=player)
           .values("rating", "games", "goats").first())
    if row is None:
        return {"rating": 0, "games_played": 0, "goats": 0}
    return {"rating": row["rating"], "games_played": row["games"], "goats": row["goats"]}


def player_skill(*, player) -> dict[str, dict[str, float]]:
    return {
        ruleset: {"mu": mu, "sigma": sigma, "ordinal": ordinal}
        for ruleset, mu, sigma, ordinal in SkillRating.objects.filter(player=player)
        .order_by("ruleset").values_list("ruleset", "mu", "sigma", "ordinal")
    }


def player_chips(*, player) -> int:
    return chips_balance(player=player)


def rating_ledger(*, player) -> QuerySet[RatingEntry]:
    """The player's rating entries, newest first."""
    return RatingEntry.objects.filter(player=player).order_by("-at", "-game_id")


def rating_board(*, period: str, ruleset: str | None) -> QuerySet[LeaderboardRow]:
    """The current board of ``period`` (``all``, ``month``, ``week``) for ``ruleset`` (None = all rulesets),
    in rank order: rating desc, then fewer games first, then username."""
    return (LeaderboardRow.objects.filter(board=board_key(period, ruleset))
            .order_by("-rating", "games", "username"))


def skill_board(*, ruleset: str) -> QuerySet[SkillRating]:
    """Skill ratings of ``ruleset`` in rank order: ordinal desc, then fewer games first, then username."""
    return SkillRating.objects.filter(ruleset=ruleset).order_by("-ordinal", "games", "username")


def ranked(rows: list[Any], offset: int) -> list[tuple[int, Any]]:
    """Attach ranks to a page of rows that starts at position ``offset`` of its board."""
    return [(offset + i + 1, row) for i, row in enumerate(rows)]
