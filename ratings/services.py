"""Ratings services: what happens to ratings, chips, skill and leaderboards when games start and end.

- ``chips_stake_for_seat`` is a ``goat.services.SEAT_TAKING_HOOKS`` entry: it escrows the ante inside
  the seat-taking transaction (or refuses the seat with ``insufficient_chips``).
- ``ratings_apply_game`` runs after a game ended (Celery task queued on commit): in ONE transaction it
  writes the rating ledger, the chip payouts, the skill changes and the leaderboard rows of that game.
  The game row lock plus the unique (game, player) ledger entry make it exactly-once.
- ``leaderboards_refresh`` recomputes the rating boards from the ledger (periodic safety net).
- ``ratings_rebuild`` recomputes every projection here from the game events alone.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, Sum
from django.db.models.functions import TruncMonth, TruncWeek
from django.utils import timezone
from openskill.models import PlackettLuce

from goat.engine.rules import evolve_all
from goat.engine.state import GameState
from goat.games.eventstore import format_at, state_load
from goat.games.models import Game, GameEvent, GameStatus, Seat
from goat.web.errors import ServiceError

from .models import (
    REASONS,
    ChipAccount,
    ChipKind,
    ChipLedgerEntry,
    GameSkillChange,
    LeaderboardBoard,
    LeaderboardRow,
    RatingEntry,
    SkillRating,
)

logger = logging.getLogger(__name__)

INSUFFICIENT_CHIPS = "You need {ante} chips to take a seat at this game; your balance is {balance}."
ALL_RULESETS = "*"
PERIODS = ("all", "month", "week")

_skill_model = PlackettLuce()


# --- periods and boards --------------------------------------------------------------------------


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


# --- chips ---------------------------------------------------------------------------------------


def _chip_account_locked(player) -> ChipAccount:
    """The player's account, locked (``SELECT ... FOR UPDATE``); created with the initial grant if new."""
    account = ChipAccount.objects.select_for_update().filter(player=player).first()
    if account is not None:
        return account
    initial = settings.GOAT_INITIAL_CHIPS
    try:
        with transaction.atomic():
            account = ChipAccount.objects.create(player=player, balance=initial)
            ChipLedgerEntry.objects.create(player=player, game=None, amount=initial, kind=ChipKind.INITIAL,
                                           at=timezone.now())
            return account
    except IntegrityError:  # created concurrently
        return ChipAccount.objects.select_for_update().get(player=player)


def chips_balance(*, player) -> int:
    """The player's balance (the initial grant if they never needed an account)."""
    balance = ChipAccount.objects.filter(player=player).values_list("balance", flat=True).first()
    return settings.GOAT_INITIAL_CHIPS if balance is None else balance


def chips_stake_for_seat(*, game: Game, player, seat: int, options) -> None:
    """SEAT_TAKING_HOOK: escrow the ante (RULES.md §10) or refuse the seat. Runs inside the seat-taking
    transaction, so a refused or failed seat leaves no stake behind."""
    ante = options.ante
    if ante <= 0:
        return
    account = _chip_account_locked(player)
    if account.balance < ante:
        raise ServiceError("insufficient_chips", INSUFFICIENT_CHIPS.format(ante=ante, balance=account.balance),
                           status=422)
    account.balance -= ante
    account.save(update_fields=["balance"])
    ChipLedgerEntry.objects.create(player=player, game=game, amount=-ante, kind=ChipKind.STAKE, at=timezone.now())


def _pay_out(game_id: int, ante: int, chips: Sequence[int], seat_players: dict[int, Any], at: datetime) -> None:
    """Each seat receives its stake back plus its net change (the engine's ``result.chips``)."""
    if ante <= 0:
        return
    by_player = sorted(((seat_players[seat], ante + chips[seat]) for seat in range(len(chips))),
                       key=lambda pair: pair[0].pk)
    for player, amount in by_player:  # in player id order: no deadlock between concurrent payouts
        _chip_account_locked(player)
        ChipLedgerEntry.objects.create(player=player, game_id=game_id, amount=amount, kind=ChipKind.PAYOUT, at=at)
        ChipAccount.objects.filter(player=player).update(balance=F("balance") + amount)


# --- skill ---------------------------------------------------------------------------------------


def skill_ranks(*, points: Sequence[int], winners: Iterable[int], goats: Iterable[int]) -> list[int]:
    """Per seat rank for openskill: winners 1, goats last, the others by points ascending; ties share."""
    winners, goats = set(winners), set(goats)

    def key(seat: int) -> tuple[int, int]:
        if seat in winners:
            return (0, 0)
        if seat in goats:
            return (2, 0)
        return (1, points[seat])

    keys = [key(seat) for seat in range(len(points))]
    order = sorted(set(keys))
    return [order.index(k) + 1 for k in keys]


def _apply_skill(game_id: int, ruleset: str, ranks: Sequence[int], seat_players: dict[int, Any]) -> None:
    players = sorted(seat_players.values(), key=lambda p: p.pk)
    # Lock (or create) the players' rows in player id order so that concurrent games never deadlock.
    ratings: dict[int, SkillRating] = {}
    for player in players:
        row = SkillRating.objects.select_for_update().filter(player=player, ruleset=ruleset).first()
        if row is None:
            fresh = _skill_model.rating()
            try:
                with transaction.atomic():
                    row = SkillRating.objects.create(
                        player=player, ruleset=ruleset, mu=fresh.mu, sigma=fresh.sigma, ordinal=fresh.ordinal(),
                        games=0, username=player.get_username(),
                    )
            except IntegrityError:
                row = SkillRating.objects.select_for_update().get(player=player, ruleset=ruleset)
        ratings[player.pk] = row
    seats = sorted(seat_players)
    teams = [[_skill_model.rating(mu=ratings[seat_players[s].pk].mu, sigma=ratings[seat_players[s].pk].sigma)]
             for s in seats]
    new = _skill_model.rate(teams, ranks=[ranks[s] for s in seats])
    changes = []
    for s, [after] in zip(seats, new):
        row = ratings[seat_players[s].pk]
        changes.append(GameSkillChange(game_id=game_id, player=seat_players[s], ruleset=ruleset, rank=ranks[s],
                                       mu_before=row.mu, sigma_before=row.sigma, mu_after=after.mu,
                                       sigma_after=after.sigma))
        row.mu, row.sigma, row.ordinal = after.mu, after.sigma, after.ordinal()
        row.games += 1
        row.save(update_fields=["mu", "sigma", "ordinal", "games"])
    GameSkillChange.objects.bulk_create(changes)


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


#: ``_bump_row`` on PostgreSQL for an existing, ranked row: the rows between the old and the new key
#: shift by one place (``up`` when the player gains points, ``down`` for a game without points) and the
#: row takes its new figures and rank, all in one statement. Updates no row when the player has no
#: (ranked) row on the board yet.
_BUMP_PG = """
WITH me AS (
    SELECT id, rating, games, username, rank FROM {table}
    WHERE board = %(board)s AND player_id = %(player)s AND rank IS NOT NULL
), up AS (
    UPDATE {table} AS t SET rank = t.rank + 1 FROM me
    WHERE %(points)s > 0 AND t.board = %(board)s AND t.rating >= me.rating AND t.rating <= me.rating + %(points)s
      AND (t.rating < me.rating + %(points)s OR (t.rating = me.rating + %(points)s AND t.games > me.games + 1)
           OR (t.rating = me.rating + %(points)s AND t.games = me.games + 1 AND t.username > me.username))
      AND (t.rating > me.rating OR (t.rating = me.rating AND t.games < me.games)
           OR (t.rating = me.rating AND t.games = me.games AND t.username < me.username))
    RETURNING 1
), down AS (
    UPDATE {table} AS t SET rank = t.rank - 1 FROM me
    WHERE %(points)s = 0 AND t.board = %(board)s AND t.rating = me.rating
      AND (t.games > me.games OR (t.games = me.games AND t.username > me.username))
      AND (t.games < me.games + 1 OR (t.games = me.games + 1 AND t.username < me.username))
    RETURNING 1
)
UPDATE {table} AS t
SET rating = me.rating + %(points)s, games = me.games + 1, goats = t.goats + %(goat)s,
    rank = me.rank - (SELECT count(*) FROM up) + (SELECT count(*) FROM down)
FROM me WHERE t.id = me.id
"""


def _bump_row(board: LeaderboardBoard, player_id: int, username: str, points: int, goat: bool) -> None:
    """Add one game to a player's row on ``board`` and keep every rank of the board exact.

    The caller holds ``board``'s lock. A player moving from key k1 to k2 shifts exactly the rows whose
    key lies between k1 and k2 by one place (one indexed UPDATE of those rows, found by key range); a
    new row shifts the rows after it. Cost: O(rows passed), not O(board).
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # the whole move in one statement (one round trip)
            cursor.execute(_BUMP_PG.format(table=connection.ops.quote_name(LeaderboardRow._meta.db_table)),
                           {"board": board.board, "player": player_id, "points": points, "goat": int(goat)})
            if cursor.rowcount:
                return
    rows = LeaderboardRow.objects.filter(board=board.board)
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


def leaderboards_rerank(boards: Iterable[str] | None = None, *, now: datetime | None = None) -> int:
    """Recompute the ranks and row counts of ``boards`` (None: every board) from scratch: one set-based
    ``UPDATE ... FROM (SELECT id, row_number() OVER (PARTITION BY board ORDER BY rating DESC, games,
    username))`` that writes only the rows whose rank differs. The caller holds the boards' locks (or
    is the only writer, e.g. inside the rebuild). Returns how many rows changed rank."""
    now = now or timezone.now()
    table = connection.ops.quote_name(LeaderboardRow._meta.db_table)
    names = None if boards is None else sorted(set(boards))
    chunks: list[list[str] | None] = [None] if names is None else [names[i:i + 500] for i in range(0, len(names), 500)]
    changed = 0
    window = "row_number() OVER (PARTITION BY board ORDER BY rating DESC, games ASC, username ASC)"
    with connection.cursor() as cursor:
        for chunk in chunks:
            where = "" if chunk is None else f"WHERE board IN ({', '.join(['%s'] * len(chunk))})"
            params = [] if chunk is None else list(chunk)
            if connection.vendor == "sqlite" and connection.Database.sqlite_version_info < (3, 33):
                cursor.execute(f"UPDATE {table} SET rank = (SELECT n.new_rank FROM (SELECT id, {window} AS new_rank "
                               f"FROM {table} {where}) AS n WHERE n.id = {table}.id) {where}", params + params)
            else:
                cursor.execute(f"UPDATE {table} AS t SET rank = n.new_rank "
                               f"FROM (SELECT id, {window} AS new_rank FROM {table} {where}) AS n "
                               f"WHERE t.id = n.id AND (t.rank IS NULL OR t.rank <> n.new_rank)", params)
            changed += max(cursor.rowcount, 0)
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


# --- one ended game ------------------------------------------------------------------------------


def _project_game(*, game_id: int, ruleset: str, state: GameState, seat_players: dict[int, Any],
                  at: datetime) -> list[RatingEntry]:
    """Every projection of one ended game. The caller holds a transaction and guarantees "once"."""
    result = state.result
    reason = REASONS[result.reason]
    goats = set(result.goats)
    entries = [
        RatingEntry(game_id=game_id, player=seat_players[seat], seat=seat, points=result.rating_points[seat],
                    reason=reason, ruleset=ruleset, goat=seat in goats, at=at)
        for seat in range(state.seats)
    ]
    RatingEntry.objects.bulk_create(entries)  # unique (game, player): a second application fails here
    _pay_out(game_id, state.options.ante, result.chips, seat_players, at)
    ranks = skill_ranks(points=[score.points for score in state.scores], winners=result.winners, goats=goats)
    _apply_skill(game_id, ruleset, ranks, seat_players)
    _bump_boards(boards_of(ruleset, at), [(e.player.pk, e.player.get_username(), e.points, e.goat) for e in entries])
    return entries


def ratings_apply_game(*, game_id: int) -> bool:
    """Apply an ended game to the ledger, chips, skill and leaderboards, exactly once.

    Returns ``True`` if this call applied it, ``False`` if it was already applied (or the game has
    not ended). Safe to run twice or concurrently: the game row lock serialises the callers and the
    second one finds the ledger entries (the unique constraint backs this up).
    """
    try:
        with transaction.atomic():
            game = Game.objects.select_for_update().filter(pk=game_id).first()
            if game is None or not game.ended or game.result is None:
                return False
            if RatingEntry.objects.filter(game_id=game_id).exists():
                return False
            state = state_load(game)
            seat_players = {s.seat: s.player for s in Seat.objects.filter(game=game).select_related("player")}
            _project_game(game_id=game.pk, ruleset=game.ruleset, state=state, seat_players=seat_players,
                          at=game.ended_at or timezone.now())
    except IntegrityError:
        if RatingEntry.objects.filter(game_id=game_id).exists():
            return False  # applied concurrently
        raise
    logger.info("ratings: applied game %s", game_id)
    return True


def ratings_apply_pending(*, now: datetime | None = None, window: timedelta = timedelta(days=7),
                          grace: timedelta = timedelta(minutes=1)) -> int:
    """Safety net: apply the games that ended in the last ``window`` (but more than ``grace`` ago) and
    have no ledger entries yet, e.g. because the broker was down when they ended. Returns how many."""
    now = now or timezone.now()
    pending = (Game.objects.filter(status__in=[GameStatus.FINISHED, GameStatus.INTERRUPTED],
                                   ended_at__gte=now - window, ended_at__lt=now - grace)
               .filter(~Exists(RatingEntry.objects.filter(game=OuterRef("pk"))))
               .order_by("ended_at", "id").values_list("pk", flat=True))
    return sum(ratings_apply_game(game_id=game_id) for game_id in list(pending))


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
        return qs.filter(Q(*[Q(**{f"{field}__startswith": f"ratings:{key}:"}) for key in current], _connector=Q.OR))

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


# --- rebuild from events alone -------------------------------------------------------------------

#: games per chunk of the rebuild: one query for their events, one bulk INSERT per table
REBUILD_CHUNK = 250


class _Rebuild:
    """The rebuild's accumulators: skill ratings and board rows in memory (applied in game-end order),
    ledger / skill-change / chip rows written per chunk with ``bulk_create``."""

    def __init__(self) -> None:
        self.user_ids: dict[str, int] = {}
        self.usernames: dict[int, str] = {}
        self.accounts: set[int] = set(ChipAccount.objects.values_list("player_id", flat=True))
        self.skill: dict[tuple[int, str], list] = {}  # (player, ruleset) -> [mu, sigma, ordinal, games]
        self.boards: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0, 0])
        self.ledger: list[RatingEntry] = []
        self.changes: list[GameSkillChange] = []
        self.chips: list[ChipLedgerEntry] = []
        self.new_accounts: set[int] = set()

    def users(self, names: Iterable[str]) -> None:
        missing = {name for name in names if name not in self.user_ids}
        if missing:
            for pk, name in get_user_model().objects.filter(username__in=missing).values_list("pk", "username"):
                self.user_ids[name] = pk
                self.usernames[pk] = name

    def chip(self, player_id: int, game_id: int, amount: int, kind: str, at: datetime) -> None:
        if player_id not in self.accounts:
            self.accounts.add(player_id)
            self.new_accounts.add(player_id)
        self.chips.append(ChipLedgerEntry(player_id=player_id, game_id=game_id, amount=amount, kind=kind, at=at))

    def project(self, game_id: int, state: GameState, seat_players: dict[int, int], at: datetime) -> None:
        """What ``_project_game`` writes for one ended game, accumulated in memory."""
        result = state.result
        reason = REASONS[result.reason]
        goats = set(result.goats)
        ruleset = state.ruleset
        for seat in range(state.seats):
            self.ledger.append(RatingEntry(game_id=game_id, player_id=seat_players[seat], seat=seat,
                                           points=result.rating_points[seat], reason=reason, ruleset=ruleset,
                                           goat=seat in goats, at=at))
        ante = state.options.ante
        if ante > 0:
            for seat in sorted(range(len(result.chips)), key=lambda s: seat_players[s]):
                self.chip(seat_players[seat], game_id, ante + result.chips[seat], ChipKind.PAYOUT, at)
        ranks = skill_ranks(points=[score.points for score in state.scores], winners=result.winners, goats=goats)
        seats = sorted(seat_players)
        before = []
        for s in seats:
            row = self.skill.get((seat_players[s], ruleset))
            if row is None:
                fresh = _skill_model.rating()
                row = self.skill[(seat_players[s], ruleset)] = [fresh.mu, fresh.sigma, fresh.ordinal(), 0]
            before.append(row)
        new = _skill_model.rate([[_skill_model.rating(mu=row[0], sigma=row[1])] for row in before],
                                ranks=[ranks[s] for s in seats])
        for s, row, [after] in zip(seats, before, new):
            self.changes.append(GameSkillChange(game_id=game_id, player_id=seat_players[s], ruleset=ruleset,
                                                rank=ranks[s], mu_before=row[0], sigma_before=row[1],
                                                mu_after=after.mu, sigma_after=after.sigma))
            row[:] = [after.mu, after.sigma, after.ordinal(), row[3] + 1]
        for board in boards_of(ruleset, at):
            for seat in range(state.seats):
                line = self.boards[(board, seat_players[seat])]
                line[0] += result.rating_points[seat]
                line[1] += 1
                line[2] += int(seat in goats)

    def flush(self) -> None:
        """Write the chunk's rows: accounts (with their initial grant) first, then the ledgers."""
        if self.new_accounts:
            initial, now = settings.GOAT_INITIAL_CHIPS, timezone.now()
            ChipAccount.objects.bulk_create([ChipAccount(player_id=p, balance=initial)
                                             for p in sorted(self.new_accounts)])
            ChipLedgerEntry.objects.bulk_create([ChipLedgerEntry(player_id=p, game=None, amount=initial,
                                                                 kind=ChipKind.INITIAL, at=now)
                                                 for p in sorted(self.new_accounts)])
            self.new_accounts.clear()
        RatingEntry.objects.bulk_create(self.ledger, batch_size=1000)
        GameSkillChange.objects.bulk_create(self.changes, batch_size=1000)
        ChipLedgerEntry.objects.bulk_create(self.chips, batch_size=1000)
        self.ledger, self.changes, self.chips = [], [], []

    def finish(self) -> None:
        """Skill ratings and leaderboards (with their ranks and counts) from the accumulated state."""
        SkillRating.objects.bulk_create(
            [SkillRating(player_id=player, ruleset=ruleset, mu=mu, sigma=sigma, ordinal=ordinal, games=games,
                         username=self.usernames[player])
             for (player, ruleset), (mu, sigma, ordinal, games) in self.skill.items()], batch_size=1000)
        LeaderboardRow.objects.bulk_create(
            [LeaderboardRow(board=board, player_id=player, username=self.usernames[player], rating=rating, games=games,
                            goats=goats) for (board, player), (rating, games, goats) in self.boards.items()],
            batch_size=1000)
        leaderboards_rerank()


def _chunk_events(game_ids: Sequence[int]) -> dict[int, list[tuple]]:
    """The events of ``game_ids`` in one query, per game in ``seq`` order: (event dict, type, seat, at)."""
    streams: dict[int, list[tuple]] = defaultdict(list)
    if connection.vendor == "postgresql":  # one plain SELECT, ``data`` decoded once (as events_load does)
        loads = json.loads
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT game_id, seq, type, at, seat, data FROM {GameEvent._meta.db_table} "
                           "WHERE game_id = ANY(%s) ORDER BY game_id, seq", [list(game_ids)])
            rows = [(g, q, t, a, s, loads(d) if d.__class__ is str else d) for g, q, t, a, s, d in cursor.fetchall()]
    else:
        rows = (GameEvent.objects.filter(game_id__in=game_ids).order_by("game_id", "seq")
                .values_list("game_id", "seq", "type", "at", "seat", "data").iterator(chunk_size=5000))
    for game_id, seq, type_, at, seat, data in rows:
        streams[game_id].append(({"seq": seq, "type": type_, "at": format_at(at), "seat": seat, "data": data}, at))
    return streams


def ratings_rebuild(*, progress: Callable[[Iterable], Iterable] | None = None,
                    chunk_size: int = REBUILD_CHUNK) -> dict[str, int]:
    """Recompute the ledger, skill ratings, chip stakes/payouts/balances and leaderboards from the
    game events alone (initial chip grants are kept): every game's stream is replayed with the engine,
    the ended games are applied in end order (``ended_at``, id). Games are read in chunks (one query for
    a chunk's events); skill ratings and board rows are accumulated in memory in that order, and the
    rows are written with ``bulk_create`` per chunk. ``progress`` wraps the game iterator (a tqdm bar)."""
    games = list(Game.objects.order_by(F("ended_at").asc(nulls_last=True), "id").values_list("pk", flat=True))
    applied = 0
    with transaction.atomic():
        # every board's lock: no post-game task changes a board while it is rebuilt
        list(LeaderboardBoard.objects.select_for_update().order_by("board").values_list("board", flat=True))
        GameSkillChange.objects.all().delete()
        SkillRating.objects.all().delete()
        RatingEntry.objects.all().delete()
        LeaderboardRow.objects.all().delete()
        ChipLedgerEntry.objects.filter(kind__in=[ChipKind.STAKE, ChipKind.PAYOUT]).delete()  # game entries only
        acc = _Rebuild()
        iterator = iter(progress(games) if progress else games)
        while True:
            chunk = list(itertools.islice(iterator, chunk_size))
            if not chunk:
                break
            streams = _chunk_events(chunk)
            states = {}
            for game_id in chunk:
                stream = streams.get(game_id)
                if stream:
                    states[game_id] = evolve_all(event for event, _ in stream)
            acc.users(name for state in states.values() if state is not None for name in state.players if name)
            for game_id, state in states.items():
                if state is None:
                    continue
                stream = streams[game_id]
                seat_players = {seat: acc.user_ids[name] for seat, name in enumerate(state.players) if name is not None}
                ante = state.options.ante
                if ante > 0:
                    for event, at in stream:
                        if event["type"] == "seat_taken":
                            acc.chip(seat_players[event["data"]["seat"]], game_id, -ante, ChipKind.STAKE, at)
                if state.ended and state.result is not None:
                    acc.project(game_id, state, seat_players, stream[-1][1])
                    applied += 1
            acc.flush()
        acc.finish()
        # Balances are the sum of each account's ledger.
        sums = dict(ChipLedgerEntry.objects.order_by().values("player").annotate(total=Sum("amount"))
                    .values_list("player", "total"))
        accounts = [ChipAccount(pk=pk, balance=sums.get(player, 0))
                    for pk, player, balance in ChipAccount.objects.values_list("pk", "player", "balance")
                    if balance != sums.get(player, 0)]
        ChipAccount.objects.bulk_update(accounts, ["balance"], batch_size=1000)
    return {"games": len(games), "applied": applied}
