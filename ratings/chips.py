"""Chips: balances, the ante's escrow and refund at a seat, the payout of an ended game (docs/rules.md §10).

- ``chips_stake_for_seat`` receives ``goat.games.signals.seat_taking``: it escrows the ante inside the
  seat-taking transaction (or refuses the seat with ``insufficient_chips``); ``chips_refund_for_seat``
  receives ``seat_freed`` and returns it when a seat of a game that never started is freed.
- ``chips_move`` is the public service for every other change of a balance (tournaments' entry
  fees, refunds and prizes go through it).
- ``chips_project`` is the projection ``ratings.chips`` of an ended game (the payout).
- ``chips_stakes_rebuild`` and ``chips_balances_rebuild`` are ``ratings_rebuild``'s part for chips.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F, Sum
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from goat.engine.errors import ALREADY_SEATED, NOT_SEATED
from goat.games.errors import GameError
from goat.games.eventstore import events_load
from goat.games.models import Game
from goat.games.projections import EndedGame
from ratings.errors import RatingError

from .models import ChipAccount, ChipKind, ChipLedgerEntry

INSUFFICIENT_CHIPS = gettext_lazy("You need {ante} chips to take a seat at this game; your balance is {balance}.")


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
        raise RatingError.INSUFFICIENT_CHIPS(detail)
    ChipLedgerEntry.objects.create(player=player, game_id=game_id, amount=amount, kind=kind, at=at or timezone.now())
    ChipAccount.objects.filter(pk=account.pk).update(balance=F("balance") + amount)
    return account.balance + amount


def chips_stake_for_seat(*, game: Game, player, seat: int, options, **_signal) -> None:
    """``seat_taking``: escrow the ante (docs/rules.md §10) or refuse the seat. Runs inside the seat-taking
    transaction, so a refused or failed seat leaves no stake behind."""
    if options.ante > 0:
        # one stake per player and game (the ledger's constraint): who left a game with an ante, and got
        # the stake back, does not come back to it
        if ChipLedgerEntry.objects.filter(player=player, game_id=game.pk, kind=ChipKind.REFUND).exists():
            raise RatingError.LEFT_GAME(LEFT_BEFORE)
        try:
            with transaction.atomic():
                chips_move(player=player, amount=-options.ante, kind=ChipKind.STAKE, game_id=game.pk)
        except IntegrityError:  # the same player's other join staked first (they raced past the seat check)
            raise GameError.ALREADY_SEATED(gettext(ALREADY_SEATED)) from None


LEFT_BEFORE = gettext_lazy("You left this game; its stake was returned and you cannot take a seat at it again.")


def chips_refund_for_seat(*, game: Game, player, seat: int, options, **_signal) -> None:
    """``seat_freed``: return the ante escrowed for a
    seat of a game that never started (its player left, or the game was cancelled as expired). Runs in
    the transaction of those events; the ledger's one-entry-per-(player, game, kind) constraint makes a
    second refund of one stake impossible (it would roll the whole command back)."""
    if options.ante > 0:
        try:
            with transaction.atomic():
                chips_move(player=player, amount=options.ante, kind=ChipKind.REFUND, game_id=game.pk)
        except IntegrityError:  # the same player's other leave refunded it first
            raise GameError.NOT_SEATED(gettext(NOT_SEATED)) from None


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



def chips_stakes_rebuild() -> int:
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



def chips_balances_rebuild() -> None:
    """Set every account's balance to the sum of its ledger."""
    sums = dict(ChipLedgerEntry.objects.order_by().values("player").annotate(total=Sum("amount"))
                .values_list("player", "total"))
    accounts = [ChipAccount(pk=pk, balance=sums.get(player, 0))
                for pk, player, balance in ChipAccount.objects.values_list("pk", "player", "balance")
                if balance != sums.get(player, 0)]
    ChipAccount.objects.bulk_update(accounts, ["balance"], batch_size=1000)
