"""Leaderboards: the rating boards (each period and ruleset); places are computed at read (R-9).

- ``leaderboards_project`` is the projection ``ratings.leaderboards`` of an ended game: the game on
  the six boards it counts on (``boards_of``), one row written per board and player.
- ``leaderboards_recount`` recomputes the row counts of boards from scratch.
- ``leaderboards_refresh`` recomputes the boards from the rating ledger (periodic safety net).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from functools import reduce
from operator import or_

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Case, Count, F, IntegerField, Q, Sum, Value, When
from django.db.models.functions import TruncMonth, TruncWeek
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
# decisions.md R-9: a row holds a player's figures on a board, never their place. A page is the index
# range of (board, rating desc, games, username) and a row's place its position in it; a player's
# place alone is a count of the rows ahead (``place_ahead``). A game end writes one row per (board,
# player) and, for a player new to a board, its count: O(1) rows per board whatever its size. Writers
# lock the LeaderboardBoard rows they touch (in board order), so ``players`` stays exact and the
# refresh (which rewrites a board's rows) never interleaves with a game end.


def key_before(rating: int, games: int, username: str) -> Q:
    """Rows whose key comes before (rating, games, username) on a board: ``rating >= r`` first (the
    index range of the rows ahead and the ties), then the order within the ties. Usernames compare in
    SQL, with the database's collation, exactly as the page's ORDER BY does."""
    return Q(rating__gte=rating) & (Q(rating__gt=rating) | Q(games__lt=games) | Q(games=games, username__lt=username))


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


def _each(field: str, amounts: dict) -> Case:
    """The amount for each row by its ``field`` (0 for a row not in ``amounts``), for one UPDATE."""
    return Case(*(When(**{field: key}, then=Value(amount)) for key, amount in amounts.items()),
                default=Value(0), output_field=IntegerField())


def _bump_boards(boards: Sequence[str], entries: Sequence[tuple[int, str, int, bool]]) -> None:
    """Apply one game's entries ``(player_id, username, points, goat)`` to ``boards``: lock them in board
    order, then add the game to every player's row on every board in one UPDATE. Only when a player is
    new to a board: one read of the rows there, one INSERT of the missing ones, one UPDATE of the
    boards' counts. The rows written grow with the game's boards and players, the statements do not."""
    locked = _boards_locked(boards)
    names = sorted(locked)
    added: dict[int, list] = {}  # player id -> [username, points, games, goats] (a player listed twice adds up)
    for player_id, username, points, goat in entries:
        row = added.setdefault(player_id, [username, 0, 0, 0])
        row[1:] = [row[1] + points, row[2] + 1, row[3] + int(goat)]
    if not names or not added:
        return

    def per_player(index: int) -> Case:
        return _each("player_id", {player_id: row[index] for player_id, row in added.items()})

    rows = LeaderboardRow.objects.filter(board__in=names, player_id__in=list(added))
    updated = rows.update(rating=F("rating") + per_player(1), games=F("games") + per_player(2),
                          goats=F("goats") + per_player(3))
    if updated == len(names) * len(added):
        return
    present = set(rows.values_list("board", "player_id"))
    missing = [(name, player_id) for name in names for player_id in sorted(added) if (name, player_id) not in present]
    LeaderboardRow.objects.bulk_create([
        LeaderboardRow(board=name, player_id=player_id, username=added[player_id][0], rating=added[player_id][1],
                       games=added[player_id][2], goats=added[player_id][3]) for name, player_id in missing])
    gained = Counter(name for name, _player_id in missing)
    LeaderboardBoard.objects.filter(pk__in=list(gained)).update(players=F("players") + _each("pk", gained))


def leaderboards_recount(boards: Iterable[str] | None = None, *, now: datetime | None = None) -> int:
    """Recompute the row counts of ``boards`` (None: every board) from their rows and note when
    (``counted_at``). The caller holds the boards' locks (or is the only writer, e.g. inside the
    rebuild). Returns how many boards had a wrong count."""
    now = now or timezone.now()
    names = None if boards is None else sorted(set(boards))
    counts_qs = LeaderboardRow.objects.order_by().values("board").annotate(n=Count("id")).values_list("board", "n")
    counts = dict(counts_qs if names is None else counts_qs.filter(board__in=names))
    all_names = set(counts) | set(names or ()) | (set(LeaderboardBoard.objects.values_list("board", flat=True))
                                                  if names is None else set())
    LeaderboardBoard.objects.bulk_create([LeaderboardBoard(board=name) for name in sorted(all_names)],
                                         ignore_conflicts=True, batch_size=1000)
    stored = dict(LeaderboardBoard.objects.filter(board__in=sorted(all_names)).values_list("board", "players"))
    LeaderboardBoard.objects.bulk_update(
        [LeaderboardBoard(board=name, players=counts.get(name, 0), counted_at=now) for name in sorted(all_names)],
        ["players", "counted_at"], batch_size=1000)
    return sum(stored.get(name) != counts.get(name, 0) for name in all_names)


def leaderboards_project(ended: EndedGame) -> None:
    """Projection ``ratings.leaderboards``: the game on the six rating boards it counts on."""
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
    every period there is, then their counts (``leaderboards_recount``). Returns the number of rows on
    those boards. A periodic task runs it as a safety net; the incremental path keeps the boards current
    between runs. Only rows whose figures differ are written."""
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
        leaderboards_recount(locked | boards | {board for board, _ in existing}, now=now)
    return len(rows)


def _period_start(period: str, now: datetime) -> datetime:
    now = now.astimezone(UTC)
    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "month":
        return start.replace(day=1)
    return start - timedelta(days=now.weekday())

