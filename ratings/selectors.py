"""Ratings selectors: the reads behind the profile, the rating ledger and the leaderboards.

Every read is an indexed lookup on a projection table (never a scan of the ledger): the profile reads
the player's ``ratings:all:*`` leaderboard row; a rating board page is a range of the index
``(board, rating desc, games, username)`` with its count from the board's row, a row's rank its
position in that order, and a player's place the count of the rows ahead of theirs (decisions.md R-9).
The skill board is read in index order and a row's rank is its position in that order.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from goat.engine import RULESETS

from .chips import chips_balance
from .leaderboards import ALL_RULESETS, board_key, key_before
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


#: the order of a rating board (R-5/R-6), that of the ``leaderboard_order_idx`` index
BOARD_ORDER = ("-rating", "games", "username")


class RankedBoard:
    """One rating board as a lazy sequence for a paginator (Django's ``Paginator``, so DRF's page-number
    pagination too): ``count()`` is the board row's ``players`` (no COUNT(*)) and a slice ``[a:b]`` is
    the rows at positions a+1..b, a range of the ``leaderboard_order_idx`` index read from the nearer
    end: ``ORDER BY rating DESC, games, username LIMIT b - a OFFSET a`` in the first half of the board,
    the same order backwards ``OFFSET count - b`` in the second (so page 1 and the last page cost the
    same at any board size; a page in the middle steps over up to half the board's index entries)."""

    def __init__(self, board: str) -> None:
        self.board = board
        self._count: int | None = None

    def count(self) -> int:
        if self._count is None:
            self._count = (LeaderboardBoard.objects.filter(board=self.board).values_list("players", flat=True).first()
                           or 0)
        return self._count

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
        rows = LeaderboardRow.objects.filter(board=self.board)
        if index.stop is not None and start > self.count() // 2:  # nearer the end: read it backwards
            stop = min(index.stop, self.count())
            if stop <= start:
                return []
            backwards = rows.order_by(*(name[1:] if name[0] == "-" else f"-{name}" for name in BOARD_ORDER))
            return list(backwards[self.count() - stop:self.count() - start])[::-1]
        rows = rows.order_by(*BOARD_ORDER)
        return list(rows[start:index.stop] if index.stop is not None else rows[start:])

    def __repr__(self) -> str:
        return f"<RankedBoard {self.board}>"


def rating_board(*, period: str, ruleset: str | None) -> RankedBoard:
    """The current board of ``period`` (``all``, ``month``, ``week``) for ``ruleset`` (None = all rulesets),
    in rank order: rating desc, then fewer games first, then username (a row's rank is its position)."""
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


def with_places(rows: QuerySet[LeaderboardRow]) -> QuerySet[LeaderboardRow]:
    """``rows`` with each one's ``rank`` on its board: 1 + the rows ahead of it, counted by a subquery
    on the ``leaderboard_order_idx`` range ``board = b AND rating >= r`` (O(place), not O(board))."""
    ahead = (LeaderboardRow.objects.filter(key_before(OuterRef("rating"), OuterRef("games"), OuterRef("username")),
                                           board=OuterRef("board"))
             .order_by().values("board").annotate(n=Count("id")).values("n"))
    return rows.annotate(rank=Coalesce(Subquery(ahead), Value(0)) + 1)


def player_boards(*, player) -> dict[str, dict[str, Any]]:
    """The player's line on each all-time board, by ruleset (``*`` = all rulesets): ``rating``,
    ``games``, ``goats`` and ``rank`` (1 + the rows ahead, counted on the board's index); a ruleset the
    player has not played is absent. One query."""
    boards = {board_key("all", rs): rs for rs in (ALL_RULESETS, *RULESETS)}
    rows = with_places(LeaderboardRow.objects.filter(player=player, board__in=list(boards))).values(
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
