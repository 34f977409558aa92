"""Ratings selectors: the reads behind the profile, the rating ledger and the leaderboards.

Every read is an indexed lookup on a projection table (never a scan of the ledger): the profile reads
the player's ``ratings:all:*`` leaderboard row; a rating board page is the index range
``board = b AND rank > offset ORDER BY rank LIMIT n`` with its count from the board's row
(decisions.md R-9), so every page costs the same at any board size. The skill board is read in index
order and a row's rank is its position in that order.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from goat.engine import RULESETS

from .chips import chips_balance
from .leaderboards import ALL_RULESETS, board_key
from .models import LeaderboardBoard, LeaderboardRow, RatingEntry, SkillRating


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


class RankedBoard:
    """One rating board as a lazy sequence for a paginator (Django's ``Paginator``, so DRF's page-number
    pagination too): ``count()`` is the board row's ``players`` and a slice ``[a:b]`` is the rows ranked
    a+1..b, read as ``WHERE board = %s AND rank > a ORDER BY rank LIMIT b - a`` on the (board, rank)
    index. Neither depends on the board's size (no COUNT(*), no OFFSET)."""

    def __init__(self, board: str) -> None:
        self.board = board

    def count(self) -> int:
        return LeaderboardBoard.objects.filter(board=self.board).values_list("players", flat=True).first() or 0

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index):
        if isinstance(index, int):
            if index < 0:
                raise IndexError("negative indices are not supported")
            rows = self[index:index + 1]
            if not rows:
                raise IndexError(index)
            return rows[0]
        if index.step not in (None, 1) or (index.start or 0) < 0 or (index.stop is not None and index.stop < 0):
            raise ValueError("only forward slices with non-negative bounds are supported")
        start = index.start or 0
        rows = LeaderboardRow.objects.filter(board=self.board, rank__gt=start).order_by("rank")
        if index.stop is not None:
            rows = rows[:max(index.stop - start, 0)]
        return list(rows)

    def __repr__(self) -> str:
        return f"<RankedBoard {self.board}>"


def rating_board(*, period: str, ruleset: str | None) -> RankedBoard:
    """The current board of ``period`` (``all``, ``month``, ``week``) for ``ruleset`` (None = all rulesets),
    in rank order: rating desc, then fewer games first, then username. Rows carry their ``rank``."""
    return RankedBoard(board_key(period, ruleset))


def skill_board(*, ruleset: str) -> QuerySet[SkillRating]:
    """Skill ratings of ``ruleset`` in rank order: ordinal desc, then fewer games first, then username."""
    return SkillRating.objects.filter(ruleset=ruleset).order_by("-ordinal", "games", "username")


def ranked(rows: list[Any], offset: int) -> list[tuple[int, Any]]:
    """Attach ranks to a page of rows that starts at position ``offset`` of its board."""
    return [(offset + i + 1, row) for i, row in enumerate(rows)]


def player_profile_section(*, player, include_private: bool, **_signal) -> dict:
    """The ratings app's part of a player's profile (goat.players.services.player_profile):
    rating, games_played and goats, skill per ruleset, and chips in the player's own view."""
    section = {
        **player_rating_stats(player=player),  # rating, games_played, goats
        "skill": player_skill(player=player),  # {ruleset: {"mu", "sigma", "ordinal"}}
    }
    if include_private:
        section["chips"] = player_chips(player=player)
    return section


#: how many of a player's latest rating entries a rating-history chart draws
HISTORY_ENTRIES = 200


def player_boards(*, player) -> dict[str, dict[str, Any]]:
    """The player's line on each all-time board, by ruleset (``*`` = all rulesets): ``rating``,
    ``games``, ``goats`` and ``rank``; a ruleset the player has not played is absent. One query."""
    boards = {board_key("all", rs): rs for rs in (ALL_RULESETS, *RULESETS)}
    rows = LeaderboardRow.objects.filter(player=player, board__in=list(boards)).values(
        "board", "rating", "games", "goats", "rank")
    return {boards[r["board"]]: {k: r[k] for k in ("rating", "games", "goats", "rank")} for r in rows}


def rating_history(*, player, totals: dict[str, int], limit: int = HISTORY_ENTRIES
                   ) -> dict[str, list[dict[str, Any]]]:
    """Per ruleset, the player's rating after each of their latest ``limit`` rated games, oldest
    first: ``{"at", "game", "points", "rating"}``. ``totals`` are the current ratings by ruleset
    (``player_boards``), from which the ledger's entries are taken back one by one, so the read is
    one indexed query of at most ``limit`` rows however many games the player has."""
    entries = list(rating_ledger(player=player).values("at", "game_id", "ruleset", "points")[:limit])
    history: dict[str, list[dict[str, Any]]] = {}
    running = dict(totals)
    for e in entries:  # newest first: the rating after this entry, then the one before it
        rating = running.get(e["ruleset"], 0)
        history.setdefault(e["ruleset"], []).append(
            {"at": e["at"], "game": e["game_id"], "points": e["points"], "rating": rating})
        running[e["ruleset"]] = rating - e["points"]
    return {ruleset: points[::-1] for ruleset, points in sorted(history.items())}


def rating_points_of(*, player, game_ids) -> dict[int, int]:
    """The rating points ``player`` got from each of ``game_ids`` (absent: none, e.g. not rated yet)."""
    return dict(RatingEntry.objects.filter(player=player, game_id__in=list(game_ids)).values_list("game_id", "points"))


def player_ruleset_stats(*, player, ruleset: str) -> dict[str, int]:
    """The player's ``rating`` and ``games`` on the all-time board of ``ruleset`` (0 and 0 if none): what
    tournament entry conditions are checked against."""
    row = (LeaderboardRow.objects.filter(board=board_key("all", ruleset), player=player)
           .values("rating", "games").first())
    return {"rating": row["rating"], "games": row["games"]} if row else {"rating": 0, "games": 0}
