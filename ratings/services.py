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

import logging
from collections import defaultdict
from datetime import datetime, timedelta, timezone as dt_timezone
from typing import Any, Callable, Iterable, Sequence

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, Sum
from django.db.models.functions import TruncMonth, TruncWeek
from django.utils import timezone
from openskill.models import PlackettLuce

from goat import engine
from goat.engine.state import GameState
from goat.errors import ServiceError
from goat.eventstore import event_dict, state_load
from goat.models import Game, GameEvent, GameStatus, Seat

from .models import (
    REASONS, ChipAccount, ChipKind, ChipLedgerEntry, GameSkillChange, LeaderboardRow, RatingEntry, SkillRating,
)

logger = logging.getLogger(__name__)

INSUFFICIENT_CHIPS = "You need {ante} chips to take a seat at this game; your balance is {balance}."
ALL_RULESETS = "*"
PERIODS = ("all", "month", "week")

_skill_model = PlackettLuce()


# --- periods and boards --------------------------------------------------------------------------


def period_key(period: str, at: datetime) -> str:
    """``all``, ``month:YYYY-MM`` or ``week:YYYY-Www`` (calendar periods in UTC; ISO weeks from Monday)."""
    at = at.astimezone(dt_timezone.utc)
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


def _bump_row(board: str, player, points: int, goat: bool) -> None:
    delta = {"rating": F("rating") + points, "games": F("games") + 1, "goats": F("goats") + int(goat)}
    if LeaderboardRow.objects.filter(board=board, player=player).update(**delta):
        return
    try:
        with transaction.atomic():
            LeaderboardRow.objects.create(board=board, player=player, username=player.get_username(),
                                          rating=points, games=1, goats=int(goat))
    except IntegrityError:  # created concurrently by another game of this player
        LeaderboardRow.objects.filter(board=board, player=player).update(**delta)


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
    boards = boards_of(ruleset, at)
    for entry in sorted(entries, key=lambda e: e.player.pk):
        for board in boards:
            _bump_row(board, entry.player, entry.points, entry.goat)
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
    every period there is. Returns the number of rows written. A periodic task runs it as a safety net;
    the incremental path keeps the boards current between runs."""
    now = now or timezone.now()
    aggregates = dict(rating=Sum("points"), games=Count("id"), goats=Count("id", filter=Q(goat=True)))
    ledger = RatingEntry.objects.order_by()
    rows: dict[tuple[str, int], list[int]] = {}
    rows.update(_board_rows(ledger.values("player", "ruleset").annotate(**aggregates), lambda g: "all"))
    for period, trunc in (("month", TruncMonth), ("week", TruncWeek)):
        qs = ledger
        if not full:
            start = _period_start(period, now)
            qs = qs.filter(at__gte=start)
        grouped = (qs.annotate(period_start=trunc("at", tzinfo=dt_timezone.utc))
                   .values("player", "ruleset", "period_start").annotate(**aggregates))
        rows.update(_board_rows(grouped, lambda g, p=period: period_key(p, g["period_start"])))
    usernames = dict(get_user_model().objects.filter(pk__in={p for _, p in rows}).values_list("pk", "username"))
    with transaction.atomic():
        stale = LeaderboardRow.objects.all()
        if not full:
            current = {period_key(p, now) for p in PERIODS}
            stale = stale.filter(Q(*[Q(board__startswith=f"ratings:{key}:") for key in current], _connector=Q.OR))
        stale.delete()
        LeaderboardRow.objects.bulk_create(
            [LeaderboardRow(board=board, player_id=player, username=usernames[player], rating=r, games=g, goats=gt)
             for (board, player), (r, g, gt) in rows.items()],
            batch_size=1000,
        )
    return len(rows)


def _period_start(period: str, now: datetime) -> datetime:
    now = now.astimezone(dt_timezone.utc)
    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "month":
        return start.replace(day=1)
    return start - timedelta(days=now.weekday())


# --- rebuild from events alone -------------------------------------------------------------------


def ratings_rebuild(*, progress: Callable[[Iterable], Iterable] | None = None) -> dict[str, int]:
    """Recompute the ledger, skill ratings, chip stakes/payouts/balances and leaderboards from the
    game events alone (initial chip grants are kept): every game's stream is replayed with the engine,
    the ended games are applied in end order. ``progress`` wraps the game iterator (a tqdm bar)."""
    User = get_user_model()
    users = {u.username: u for u in User.objects.all()}
    games = list(Game.objects.order_by(F("ended_at").asc(nulls_last=True), "id").values_list("pk", "ruleset"))
    applied = 0
    with transaction.atomic():
        GameSkillChange.objects.all().delete()
        SkillRating.objects.all().delete()
        RatingEntry.objects.all().delete()
        LeaderboardRow.objects.all().delete()
        ChipLedgerEntry.objects.filter(kind__in=[ChipKind.STAKE, ChipKind.PAYOUT]).delete()  # game entries only
        iterator = progress(games) if progress else games
        for game_id, ruleset in iterator:
            state, seats_taken, last_at = _replay_stream(game_id)
            if state is None:
                continue
            ante = state.options.ante
            seat_players = {seat: users[name] for seat, name in enumerate(state.players) if name is not None}
            if ante > 0:
                for seat, at in seats_taken:
                    player = seat_players[seat]
                    _chip_account_locked(player)
                    ChipLedgerEntry.objects.create(player=player, game_id=game_id, amount=-ante,
                                                   kind=ChipKind.STAKE, at=at)
            if state.ended and state.result is not None:
                _project_game(game_id=game_id, ruleset=state.ruleset, state=state, seat_players=seat_players,
                              at=last_at)
                applied += 1
        # Balances are the sum of each account's ledger.
        sums = dict(ChipLedgerEntry.objects.order_by().values("player").annotate(total=Sum("amount"))
                    .values_list("player", "total"))
        for account in ChipAccount.objects.all():
            balance = sums.get(account.player_id, 0)
            if account.balance != balance:
                account.balance = balance
                account.save(update_fields=["balance"])
    return {"games": len(games), "applied": applied}


def _replay_stream(game_id: int) -> tuple[GameState | None, list[tuple[int, datetime]], datetime | None]:
    """The engine state after the game's events, when each seat was taken, and when the last event was."""
    state = None
    seats_taken: list[tuple[int, datetime]] = []
    last_at = None
    for event in GameEvent.objects.filter(game_id=game_id).order_by("seq").iterator(chunk_size=500):
        state = engine.evolve(state, event_dict(event))
        if event.type == "seat_taken":
            seats_taken.append((event.data["seat"], event.at))
        last_at = event.at
    return state, seats_taken, last_at
