"""Leaderboards: the rating boards (each period and ruleset) with their ranks kept exact.

- ``leaderboards_project`` is the projection ``ratings.leaderboards`` of an ended game: the game on
  the six boards it counts on (``boards_of``), each rank kept exact (decisions.md R-9).
- ``leaderboards_rerank`` recomputes the ranks of boards from scratch.
- ``leaderboards_refresh`` recomputes the boards from the rating ledger (periodic safety net).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from functools import reduce
from operator import or_

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, F, Q, Sum, Window
from django.db.models.functions import RowNumber, TruncMonth, TruncWeek
from django.utils import timezone

from goat.games.projections import EndedGame

from .models import LeaderboardBoard, LeaderboardRow, RatingEntry

ALL_RULESETS = "*"
PERIODS = ("all", "month", "week")


def period_key(period: str, at: datetime) -> str:
    """``all``, ``month:YYYY-MM`` or ``week:YYYY-Www`` (calendar periods in UTC; ISO weeks from Monday)."""
    at = at.astimezone(UTC)
    if period == "all":
        return "all"
    if period == "month":
        return f"month:{at.year:04d}-{at.month:02d}"
    if period == "week":
        year, week, _ = at.isocalendar()
        return f"week:{year:04d}-W{week:02d}"
    raise ValueError(f"unknown period {period!r}")


def board_key(period: str, ruleset: str | None, at: datetime | None = None) -> str:
    """The rating board of ``period`` (the one containing ``at``, default now) and ``ruleset`` (``*`` = all)."""
    return f"ratings:{period_key(period, at or timezone.now())}:{ruleset or ALL_RULESETS}"


def boards_of(ruleset: str, at: datetime) -> list[str]:
    """The six boards a game of ``ruleset`` that ended at ``at`` counts on."""
    return [board_key(period, rs, at) for period in PERIODS for rs in (ALL_RULESETS, ruleset)]


# --- leaderboards --------------------------------------------------------------------------------
#
# decisions.md R-9: ranks are materialised on LeaderboardRow and kept exact by every writer, which
# first locks the LeaderboardBoard rows it touches (in board order). The board order is the key
# (rating desc, games asc, username asc) compared in SQL, so usernames compare with the database's
# collation exactly as the full recompute's ORDER BY does.


def _key_after(rating: int, games: int, username: str) -> Q:
    """Rows whose key comes after (rating, games, username) on a board."""
    return (Q(rating__lt=rating) | Q(rating=rating, games__gt=games)
            | Q(rating=rating, games=games, username__gt=username))


def _key_before(rating: int, games: int, username: str) -> Q:
    """Rows whose key comes before (rating, games, username) on a board."""
    return (Q(rating__gt=rating) | Q(rating=rating, games__lt=games)
            | Q(rating=rating, games=games, username__lt=username))


def _boards_locked(boards: Iterable[str]) -> dict[str, LeaderboardBoard]:
    """Lock the given boards (``SELECT ... FOR UPDATE`` in board order, so concurrent writers never
    deadlock), creating the missing ones (a new period or ruleset) empty first."""
    names = sorted(set(boards))
    locked = {b.board: b for b in
              LeaderboardBoard.objects.select_for_update().filter(board__in=names).order_by("board")}
    missing = [name for name in names if name not in locked]
    if missing:
        LeaderboardBoard.objects.bulk_create([LeaderboardBoard(board=name) for name in missing], ignore_conflicts=True)
        locked.update({b.board: b for b in LeaderboardBoard.objects.select_for_update().filter(board__in=missing)
                       .order_by("board")})
    return locked


#: set inside ``ranks_deferred()`` (``ratings_rebuild``, which reranks every board after replaying every
#: game: keeping the ranks exact game by game there would shift rows that the final rerank writes again)
_RANKS_DEFERRED: ContextVar[bool] = ContextVar("leaderboard_ranks_deferred", default=False)


@contextmanager
def ranks_deferred() -> Iterator[None]:
    """Inside the block, a game on a board adds its figures only; the caller reranks every board after."""
    token = _RANKS_DEFERRED.set(True)
    try:
        yield
    finally:
        _RANKS_DEFERRED.reset(token)


def _bump_row(board: LeaderboardBoard, player_id: int, username: str, points: int, goat: bool) -> None:
    """Add one game to a player's row on ``board`` and keep every rank of the board exact.

    The caller holds ``board``'s lock. A player moving from key k1 to k2 shifts exactly the rows whose
    key lies between k1 and k2 by one place (one indexed UPDATE of those rows, found by key range); a
    new row shifts the rows after it. Cost: O(rows passed), not O(board).
    """
    rows = LeaderboardRow.objects.filter(board=board.board)
    if _RANKS_DEFERRED.get():  # inside ratings_rebuild: the figures only; it ranks every board once at its end
        if not rows.filter(player_id=player_id).update(rating=F("rating") + points, games=F("games") + 1,
                                                       goats=F("goats") + int(goat)):
            LeaderboardRow.objects.create(board=board.board, player_id=player_id, username=username, rating=points,
                                          games=1, goats=int(goat), rank=None)
        return
    row = rows.filter(player_id=player_id).values("pk", "rating", "games", "rank", "username").first()
    if row is None:
        new = (points, 1, username)
        passed = rows.filter(rating__lte=points).filter(_key_after(*new)).update(rank=F("rank") + 1)
        LeaderboardRow.objects.create(board=board.board, player_id=player_id, username=username, rating=points,
                                      games=1, goats=int(goat), rank=board.players + 1 - passed)
        board.players += 1
        LeaderboardBoard.objects.filter(pk=board.board).update(players=F("players") + 1)
        return
    old = (row["rating"], row["games"], row["username"])
    new = (row["rating"] + points, row["games"] + 1, row["username"])
    if row["rank"] is None:  # not ranked yet (rows loaded in bulk without a rerank): rank the board now
        LeaderboardRow.objects.filter(pk=row["pk"]).update(rating=new[0], games=new[1], goats=F("goats") + int(goat))
        leaderboards_rerank([board.board])
        return
    if points > 0:  # moves up: the rows with new < key < old move down one place
        passed = (rows.filter(rating__gte=old[0], rating__lte=new[0]).filter(_key_after(*new))
                  .filter(_key_before(*old)).update(rank=F("rank") + 1))
        rank = row["rank"] - passed
    else:  # the same rating in one more game: the rows with old < key < new move up one place
        passed = (rows.filter(rating=old[0]).filter(_key_after(*old)).filter(_key_before(*new))
                  .update(rank=F("rank") - 1))
        rank = row["rank"] + passed
    LeaderboardRow.objects.filter(pk=row["pk"]).update(rating=new[0], games=new[1], goats=F("goats") + int(goat),
                                                      rank=rank)


def _bump_boards(boards: Sequence[str], entries: Sequence[tuple[int, str, int, bool]]) -> None:
    """Apply one game's entries ``(player_id, username, points, goat)`` to ``boards``: lock them in board
    order, then update the rows (in player id order) and their ranks."""
    locked = _boards_locked(boards)
    for name in sorted(locked):
        for player_id, username, points, goat in sorted(entries):
            _bump_row(locked[name], player_id, username, points, goat)


#: a leaderboard row's columns, all of which an upsert of its rank must carry
_ROW_FIELDS = ("pk", "board", "player_id", "username", "rating", "games", "goats")


def leaderboards_rerank(boards: Iterable[str] | None = None, *, now: datetime | None = None) -> int:
    """Recompute the ranks and row counts of ``boards`` (None: every board) from scratch: the database
    numbers each board's rows (``row_number() OVER (PARTITION BY board ORDER BY rating DESC, games,
    username)``) and returns only the rows whose rank differs, which are then written in batches. The
    caller holds the boards' locks (or is the only writer, e.g. inside the rebuild). Returns how many
    rows changed rank."""
    now = now or timezone.now()
    names = None if boards is None else sorted(set(boards))
    chunks: list[list[str] | None] = [None] if names is None else [names[i:i + 500] for i in range(0, len(names), 500)]
    changed = 0
    for chunk in chunks:
        rows = LeaderboardRow.objects.all() if chunk is None else LeaderboardRow.objects.filter(board__in=chunk)
        numbered = rows.annotate(new_rank=Window(RowNumber(), partition_by=F("board"),
                                                 order_by=[F("rating").desc(), F("games").asc(), F("username").asc()]))
        moved = numbered.filter(Q(rank__isnull=True) | ~Q(rank=F("new_rank"))).values_list(*_ROW_FIELDS, "new_rank")
        updates = [LeaderboardRow(**dict(zip(_ROW_FIELDS, row[:-1], strict=True)), rank=row[-1])
                   for row in moved.iterator(chunk_size=2000)]
        # an upsert on the primary key that writes only ``rank``: one multi-row statement per batch
        # (bulk_update's CASE per row is slower: docs/performance.md)
        LeaderboardRow.objects.bulk_create(updates, update_conflicts=True, unique_fields=["id"],
                                           update_fields=["rank"], batch_size=1000)
        changed += len(updates)
    counts_qs = LeaderboardRow.objects.order_by().values("board").annotate(n=Count("id")).values_list("board", "n")
    counts = dict(counts_qs if names is None else counts_qs.filter(board__in=names))
    all_names = set(counts) | set(names or ()) | (set(LeaderboardBoard.objects.values_list("board", flat=True))
                                                  if names is None else set())
    LeaderboardBoard.objects.bulk_create([LeaderboardBoard(board=name) for name in sorted(all_names)],
                                         ignore_conflicts=True, batch_size=1000)
    LeaderboardBoard.objects.bulk_update(
        [LeaderboardBoard(board=name, players=counts.get(name, 0), ranked_at=now) for name in sorted(all_names)],
        ["players", "ranked_at"], batch_size=1000)
    return changed



def leaderboards_project(ended: EndedGame) -> None:
    """Projection ``ratings.leaderboards``: the game on the six rating boards it counts on, ranks exact."""
    if not ended.game.rated:  # a game with a computer player counts for nothing here
        return
    state, result = ended.state, ended.state.result
    goats = set(result.goats)
    entries = [(ended.players[seat].pk, ended.players[seat].get_username(), result.rating_points[seat], seat in goats)
               for seat in range(state.seats)]
    _bump_boards(boards_of(state.ruleset, ended.ended_at), entries)


# --- full refresh of the rating boards -----------------------------------------------------------


def _board_rows(entries, key: Callable[[dict], str]) -> dict[tuple[str, int], list[int]]:
    rows: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for group in entries:
        for board in (f"ratings:{key(group)}:{ALL_RULESETS}", f"ratings:{key(group)}:{group['ruleset']}"):
            row = rows[(board, group["player"])]
            row[0] += group["rating"]
            row[1] += group["games"]
            row[2] += group["goats"]
    return rows


def leaderboards_refresh(*, full: bool = False, now: datetime | None = None) -> int:
    """Recompute rating boards from the ledger: ``all`` and the current month and week, or (``full``)
    every period there is, then their ranks and counts (``leaderboards_rerank``). Returns the number of
    rows on those boards. A periodic task runs it as a safety net; the incremental path keeps the boards
    (and their ranks) current between runs. Only rows whose figures differ are written."""
    now = now or timezone.now()
    current = {period_key(p, now) for p in PERIODS}

    def in_scope(qs, field: str = "board"):
        if full:
            return qs
        return qs.filter(reduce(or_, [Q(**{f"{field}__startswith": f"ratings:{key}:"}) for key in sorted(current)]))

    with transaction.atomic():
        # Lock the boards first (board order, like the post-game task): games applied after this point
        # wait for the refresh and then add themselves to what it wrote.
        locked = set(in_scope(LeaderboardBoard.objects.select_for_update()).order_by("board")
                     .values_list("board", flat=True))
        aggregates = dict(rating=Sum("points"), games=Count("id"), goats=Count("id", filter=Q(goat=True)))
        ledger = RatingEntry.objects.order_by()
        rows: dict[tuple[str, int], list[int]] = {}
        rows.update(_board_rows(ledger.values("player", "ruleset").annotate(**aggregates), lambda g: "all"))
        for period, trunc in (("month", TruncMonth), ("week", TruncWeek)):
            qs = ledger
            if not full:
                qs = qs.filter(at__gte=_period_start(period, now))
            grouped = (qs.annotate(period_start=trunc("at", tzinfo=UTC))
                       .values("player", "ruleset", "period_start").annotate(**aggregates))
            rows.update(_board_rows(grouped, lambda g, p=period: period_key(p, g["period_start"])))
        boards = {board for board, _ in rows}
        if boards - locked:
            _boards_locked(boards - locked)
        stored = in_scope(LeaderboardRow.objects.order_by()).values_list(
            "pk", "board", "player", "username", "rating", "games", "goats")
        existing = {(board, player): (pk, username, rating, games, goats)
                    for pk, board, player, username, rating, games, goats in stored.iterator(chunk_size=5000)}
        missing_names = {player for key, player in rows if (key, player) not in existing}
        usernames = dict(get_user_model().objects.filter(pk__in=missing_names).values_list("pk", "username"))
        stale = [pk for key, (pk, *_rest) in existing.items() if key not in rows]
        changed, created = [], []
        for key, (rating, games, goats) in rows.items():
            old = existing.get(key)
            if old is None:
                created.append(LeaderboardRow(board=key[0], player_id=key[1], username=usernames[key[1]], rating=rating,
                                              games=games, goats=goats))
            elif old[2:] != (rating, games, goats):
                changed.append(LeaderboardRow(pk=old[0], rating=rating, games=games, goats=goats))
        for start in range(0, len(stale), 1000):
            LeaderboardRow.objects.filter(pk__in=stale[start:start + 1000]).delete()
        LeaderboardRow.objects.bulk_update(changed, ["rating", "games", "goats"], batch_size=1000)
        LeaderboardRow.objects.bulk_create(created, batch_size=1000)
        leaderboards_rerank(locked | boards | {board for board, _ in existing}, now=now)
    return len(rows)


def _period_start(period: str, now: datetime) -> datetime:
    now = now.astimezone(UTC)
    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "month":
        return start.replace(day=1)
    return start - timedelta(days=now.weekday())

