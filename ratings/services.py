"""Ratings services: what happens to ratings, chips, skill and leaderboards when games start and end.

- ``chips_stake_for_seat`` is a seat guard (``goat.games.services.seat_guard_register``): it escrows
  the ante inside the seat-taking transaction (or refuses the seat with ``insufficient_chips``).
- ``chips_move`` is the public service for every other change of a balance (tournaments' entry
  fees, refunds and prizes go through it).
- Four projections of an ended game (``goat.games.projections``, registered in RatingsConfig.ready):
  ``ledger_project`` (rating ledger), ``chips_project`` (the payout), ``skill_project`` (openskill)
  and ``leaderboards_project`` (the rating boards and their ranks). Each runs exactly once per game
  (its tracking row is written in the same transaction as its rows), live after the game ended
  and in ``ratings_rebuild`` alike.
- ``leaderboards_refresh`` recomputes the rating boards from the ledger (periodic safety net).
- ``ratings_rebuild`` recomputes every projection here from the game events alone.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Q, Sum, Window
from django.db.models.functions import RowNumber, TruncMonth, TruncWeek
from django.utils import timezone
from django.utils.translation import gettext_lazy
from openskill.models import PlackettLuce

from goat.games import projections
from goat.games.eventstore import events_load
from goat.games.models import Game
from goat.games.projections import EndedGame
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

INSUFFICIENT_CHIPS = gettext_lazy("You need {ante} chips to take a seat at this game; your balance is {balance}.")
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
    """The player's account, locked (``SELECT ... FOR UPDATE``); created with the initial grant if new.

    The one lock of a chip change, and a narrow one: a balance is checked and then changed, and two
    changes of one player's balance (two seats taken at once, a seat and a tournament fee) must not
    both pass the check. It holds only that player's account row, never a game.
    """
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


def chips_move(*, player, amount: int, kind: str, at: datetime | None = None, game_id: int | None = None,
               refusal: str = INSUFFICIENT_CHIPS) -> int:
    """Change ``player``'s balance by ``amount`` with a ledger entry, under the account's lock; returns the
    new balance. A debit beyond the balance is refused with ``insufficient_chips`` (``refusal`` is its
    message, formatted with the debit as ``ante`` and as ``fee``, and ``balance``). Runs inside the caller's
    transaction."""
    account = _chip_account_locked(player)
    if amount < 0 and account.balance < -amount:
        detail = refusal.format(ante=-amount, fee=-amount, balance=account.balance)
        raise ServiceError("insufficient_chips", detail, status=422)
    ChipLedgerEntry.objects.create(player=player, game_id=game_id, amount=amount, kind=kind, at=at or timezone.now())
    ChipAccount.objects.filter(pk=account.pk).update(balance=F("balance") + amount)
    return account.balance + amount


def chips_stake_for_seat(*, game: Game, player, seat: int, options) -> None:
    """Seat guard: escrow the ante (RULES.md §10) or refuse the seat. Runs inside the seat-taking
    transaction, so a refused or failed seat leaves no stake behind."""
    if options.ante > 0:
        # one stake per player and game (the ledger's constraint): who left a game with an ante, and got
        # the stake back, does not come back to it
        if ChipLedgerEntry.objects.filter(player=player, game_id=game.pk, kind=ChipKind.REFUND).exists():
            raise ServiceError("left_game", LEFT_BEFORE, status=409)
        try:
            with transaction.atomic():
                chips_move(player=player, amount=-options.ante, kind=ChipKind.STAKE, game_id=game.pk)
        except IntegrityError:  # the same player's other join staked first (they raced past the seat check)
            raise ServiceError("already_seated", ALREADY_STAKED, status=409) from None


LEFT_BEFORE = gettext_lazy("You left this game; its stake was returned and you cannot take a seat at it again.")
ALREADY_STAKED = gettext_lazy("You already have a seat at this game.")


def chips_refund_for_seat(*, game: Game, player, seat: int, options) -> None:
    """Seat release (``goat.games.services.seat_release_register``): return the ante escrowed for a
    seat of a game that never started (its player left, or the game was cancelled as expired). Runs in
    the transaction of those events; the ledger's one-entry-per-(player, game, kind) constraint makes a
    second refund of one stake impossible (it would roll the whole command back)."""
    if options.ante > 0:
        try:
            with transaction.atomic():
                chips_move(player=player, amount=options.ante, kind=ChipKind.REFUND, game_id=game.pk)
        except IntegrityError:  # the same player's other leave refunded it first
            raise ServiceError("not_seated", "You have no seat at this game.", status=403) from None


def chips_project(ended: EndedGame) -> None:
    """Projection ``ratings.chips``: each seat receives its stake back plus its net change (the engine's
    ``result.chips``), in player id order (no deadlock between concurrent payouts)."""
    ante = ended.state.options.ante
    if ante <= 0 or not ended.game.rated:  # (a game with a computer player has no ante)
        return
    chips = ended.state.result.chips
    for player, amount in sorted(((ended.players[seat], ante + chips[seat]) for seat in range(len(chips))),
                                 key=lambda pair: pair[0].pk):
        chips_move(player=player, amount=amount, kind=ChipKind.PAYOUT, at=ended.ended_at, game_id=ended.game.pk)


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
    for s, [after] in zip(seats, new, strict=True):
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


#: set by ``ratings_rebuild``, which reranks every board after replaying every game: keeping the ranks
#: exact game by game there would shift rows that the final rerank writes again anyway
_RANKS_DEFERRED: ContextVar[bool] = ContextVar("leaderboard_ranks_deferred", default=False)


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
        # (bulk_update's CASE per row took ~4x as long: docs/performance.md)
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


# --- the projections of one ended game (goat.games.projections) -----------------------------------
#
# Each is one function from the finished game to rows; projections.projection_apply runs it with its
# tracking row in one transaction (exactly once per game). Registered in RatingsConfig.ready.

LEDGER, CHIPS, SKILL, LEADERBOARDS = "ratings.ledger", "ratings.chips", "ratings.skill", "ratings.leaderboards"
PROJECTIONS = (LEDGER, CHIPS, SKILL, LEADERBOARDS)


def ledger_project(ended: EndedGame) -> None:
    """Projection ``ratings.ledger``: each player's rating points of the game (RULES.md §9)."""
    if not ended.game.rated:  # a game with a computer player counts for nothing here
        return
    state, result = ended.state, ended.state.result
    reason, goats = REASONS[result.reason], set(result.goats)
    RatingEntry.objects.bulk_create([
        RatingEntry(game_id=ended.game.pk, player=ended.players[seat], seat=seat, points=result.rating_points[seat],
                    reason=reason, ruleset=state.ruleset, goat=seat in goats, at=ended.ended_at)
        for seat in range(state.seats)
    ])  # unique (game, player): a second application would fail here too


def skill_project(ended: EndedGame) -> None:
    """Projection ``ratings.skill``: the openskill update of every player of the game."""
    if not ended.game.rated:  # a game with a computer player counts for nothing here
        return
    state, result = ended.state, ended.state.result
    ranks = skill_ranks(points=state.points, winners=result.winners, goats=result.goats)
    _apply_skill(ended.game.pk, state.ruleset, ranks, ended.players)


def leaderboards_project(ended: EndedGame) -> None:
    """Projection ``ratings.leaderboards``: the game on the six rating boards it counts on, ranks exact."""
    if not ended.game.rated:  # a game with a computer player counts for nothing here
        return
    state, result = ended.state, ended.state.result
    goats = set(result.goats)
    entries = [(ended.players[seat].pk, ended.players[seat].get_username(), result.rating_points[seat], seat in goats)
               for seat in range(state.seats)]
    _bump_boards(boards_of(state.ruleset, ended.ended_at), entries)


def ratings_register() -> None:
    """Register the ratings projections and the ante's seat guard (RatingsConfig.ready)."""
    from goat.games import services as games

    games.seat_guard_register(chips_stake_for_seat)
    games.seat_release_register(chips_refund_for_seat)
    projections.register(LEDGER, ledger_project, order=10)
    projections.register(CHIPS, chips_project, order=20)
    projections.register(SKILL, skill_project, order=30)
    projections.register(LEADERBOARDS, leaderboards_project, order=40)


def ratings_apply_game(*, game_id: int) -> bool:
    """Apply an ended game to the ledger, chips, skill and leaderboards, each exactly once. Returns
    whether this call applied any of them (False: already applied, or the game has not ended)."""
    return bool(projections.projections_apply_game(game_id=game_id, prefix="ratings."))


def ratings_apply_pending(*, now: datetime | None = None, window: timedelta = timedelta(days=7),
                          grace: timedelta = timedelta(minutes=1)) -> int:
    """Safety net: apply the ratings projections to the games that ended in the last ``window`` (more
    than ``grace`` ago) and that they have not tracked. Returns how many games were applied."""
    pending = set()
    for proj in projections.registered("ratings."):
        pending.update(projections.projections_pending(name=proj.name, now=now, window=window, grace=grace))
    return sum(ratings_apply_game(game_id=game_id) for game_id in sorted(pending))


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


def _stakes_rebuild() -> int:
    """The ante escrowed at each seat of every game with an ante, from its ``seat_taken`` events (a
    stake is written by the command that takes the seat, not by a projection of the ended game), and
    the refunds of a game cancelled as expired. A player who left (``seat_left``) gets neither back:
    their stake and its refund cancel out, and their seat row (who they were) is gone."""
    stakes = []
    for game_id, options in Game.objects.filter(version__gt=0).order_by("id").values_list("pk", "options"):
        ante = (options or {}).get("ante") or 0
        if ante <= 0:
            continue
        players = dict(Game.objects.get(pk=game_id).seat_set.values_list("seat", "player_id"))
        taken: dict[int, datetime] = {}  # seat -> when its present occupant took it
        for event in events_load(game_id=game_id):
            if event.type == "seat_taken":
                taken[event.data["seat"]] = event.at
            elif event.type == "seat_left":
                del taken[event.data["seat"]]
            elif event.type == "game_cancelled":
                stakes.extend(ChipLedgerEntry(player_id=players[seat], game_id=game_id, amount=ante,
                                              kind=ChipKind.REFUND, at=event.at) for seat in sorted(taken))
        stakes.extend(ChipLedgerEntry(player_id=players[seat], game_id=game_id, amount=-ante, kind=ChipKind.STAKE,
                                      at=at) for seat, at in taken.items())
    for player_id in sorted({entry.player_id for entry in stakes}):  # accounts (with the grant) first
        _chip_account_locked(get_user_model()(pk=player_id))
    ChipLedgerEntry.objects.bulk_create(stakes, batch_size=1000)
    return len(stakes)


def ratings_rebuild(*, progress: Callable[[Iterable], Iterable] | None = None) -> dict[str, int]:
    """Recompute the ledger, skill ratings, chip stakes/payouts/balances and leaderboards from the
    game events alone (initial chip grants are kept), in ONE transaction: every ratings projection's
    rows and tracking rows are deleted, then the same projection functions as the live path run on
    every ended game in end order (``ended_at``, id). ``progress`` wraps the game iterator (a tqdm bar)."""
    ended = list(Game.objects.filter(ended_at__isnull=False).order_by("ended_at", "id").values_list("pk", flat=True))
    applied = 0
    with transaction.atomic():
        # every board's lock: no post-game task changes a board while it is rebuilt
        list(LeaderboardBoard.objects.select_for_update().order_by("board").values_list("board", flat=True))
        GameSkillChange.objects.all().delete()
        SkillRating.objects.all().delete()
        RatingEntry.objects.all().delete()
        LeaderboardRow.objects.all().delete()
        LeaderboardBoard.objects.update(players=0)
        ChipLedgerEntry.objects.filter(kind__in=[ChipKind.STAKE, ChipKind.PAYOUT, ChipKind.REFUND]).delete()  # games'

        projections.projection_records_forget(names=list(PROJECTIONS))
        ChipAccount.objects.update(balance=0)  # set to the ledger's sums below
        _stakes_rebuild()
        deferred = _RANKS_DEFERRED.set(True)
        try:
            for game_id in (progress(ended) if progress else ended):
                applied += bool(projections.projections_apply_game(game_id=game_id, prefix="ratings.",
                                                                   from_events=True))
        finally:
            _RANKS_DEFERRED.reset(deferred)
        leaderboards_rerank()
        # Balances are the sum of each account's ledger.
        sums = dict(ChipLedgerEntry.objects.order_by().values("player").annotate(total=Sum("amount"))
                    .values_list("player", "total"))
        accounts = [ChipAccount(pk=pk, balance=sums.get(player, 0))
                    for pk, player, balance in ChipAccount.objects.values_list("pk", "player", "balance")
                    if balance != sums.get(player, 0)]
        ChipAccount.objects.bulk_update(accounts, ["balance"], batch_size=1000)
    return {"games": Game.objects.count(), "applied": applied}
