"""Entering and leaving before the start: whether registration is open, the entry conditions
(invite code, games, rating), registering (the entry fee) and withdrawing (its refund)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext_lazy

from goat.games import services as games
from goat.players.errors import PlayerError
from goat.players.services import player_is_bot, player_is_computer
from goat.web.api.throttling import secret_attempt
from ratings.chips import chips_move
from ratings.models import ChipKind
from ratings.selectors import player_ruleset_stats
from tournaments.errors import TournamentError

from ..models import Registration, Tournament, TournamentFormat, TournamentStatus
from . import lifecycle, live, standings
from .base import locked
from .creation import invite_code_digest

TOURNAMENT_FULL = gettext_lazy("The tournament has {max_players} players already.")


REGISTRATION_CLOSED = gettext_lazy("Registration for this tournament is closed.")


ALREADY_REGISTERED = gettext_lazy("You are already registered for this tournament.")


NOT_REGISTERED = gettext_lazy("You are not registered for this tournament.")


INSUFFICIENT_CHIPS = gettext_lazy("The entry fee is {fee} chips; your balance is {balance}.")


COMPUTER_PLAYER = gettext_lazy("Computer players play unrated games only; they do not enter tournaments.")


INVITE_CODE_REQUIRED = gettext_lazy("This tournament is by invitation: send its invite code.")


INVITE_CODE_WRONG = gettext_lazy("That is not this tournament's invite code.")


ENTRY_MIN_GAMES = gettext_lazy(
    "min_games: this tournament needs {need} games of {ruleset}; you have played {have}.")


ENTRY_MIN_RATING = gettext_lazy(
    "min_rating: this tournament needs a {ruleset} rating of at least {need}; yours is {have}.")


ENTRY_MAX_RATING = gettext_lazy(
    "max_rating: this tournament is for a {ruleset} rating of at most {need}; yours is {have}.")


def registration_open(tournament: Tournament, now: datetime | None = None) -> bool:
    """Swiss: until the start. Arena: also while it runs, until its end time (late entries wait for a table)."""
    if tournament.status == TournamentStatus.SCHEDULED:
        return True
    if tournament.status == TournamentStatus.RUNNING and tournament.format == TournamentFormat.ARENA:
        return (now or timezone.now()) < tournament.ends_at
    return False


def _invite_code_check(tournament: Tournament, player, invite_code: str) -> None:
    """403 ``invite_code_wrong`` unless ``invite_code`` is the tournament's. Wrong codes are throttled
    per player (rate ``invite_player``) and per tournament (``invite_tournament``) so that they hold the
    guesser and never the tournament's rightful entrants: past the tournament's rate, a player who has
    not tried a wrong code here still has one attempt (goat.web.api.throttling.secret_attempt). The counts
    are outside the database transaction: a refusal's rollback keeps them."""
    right = constant_time_compare(invite_code_digest(invite_code), tournament.invite_code_digest)
    secret_attempt(guesser=("invite_player", str(player.pk)), target=("invite_tournament", str(tournament.pk)),
                   right=right)
    if not right:
        raise TournamentError.INVITE_CODE_WRONG(INVITE_CODE_WRONG)


def entry_check(tournament: Tournament, player, invite_code: str | None) -> None:
    """The entry conditions (docs/tournaments.md): the invite code first (403
    ``invite_code_required`` / ``invite_code_wrong``, compared as digests in constant time; wrong codes
    throttled: ``_invite_code_check``), then games
    and rating on the tournament ruleset's all-time board (422 ``entry_condition_not_met`` naming it)."""
    if tournament.invite_code_digest:
        if not invite_code:
            raise TournamentError.INVITE_CODE_REQUIRED(INVITE_CODE_REQUIRED)
        _invite_code_check(tournament, player, invite_code)
    conditions = (tournament.entry_min_games, tournament.entry_min_rating, tournament.entry_max_rating)
    if all(c is None for c in conditions):
        return
    stats = player_ruleset_stats(player=player, ruleset=tournament.ruleset)
    if tournament.entry_min_games is not None and stats["games"] < tournament.entry_min_games:
        raise TournamentError.ENTRY_CONDITION_NOT_MET(ENTRY_MIN_GAMES.format(
            need=tournament.entry_min_games, ruleset=tournament.ruleset, have=stats["games"]))
    if tournament.entry_min_rating is not None and stats["rating"] < tournament.entry_min_rating:
        raise TournamentError.ENTRY_CONDITION_NOT_MET(ENTRY_MIN_RATING.format(
            need=tournament.entry_min_rating, ruleset=tournament.ruleset, have=stats["rating"]))
    if tournament.entry_max_rating is not None and stats["rating"] > tournament.entry_max_rating:
        raise TournamentError.ENTRY_CONDITION_NOT_MET(ENTRY_MAX_RATING.format(
            need=tournament.entry_max_rating, ruleset=tournament.ruleset, have=stats["rating"]))


@transaction.atomic
def tournament_register(*, tournament_id: int, player, now: datetime | None = None,
                        invite_code: str | None = None) -> Registration:
    now = now or timezone.now()
    if player_is_computer(player=player):  # computer players play unrated games only
        raise PlayerError.COMPUTER_PLAYER(COMPUTER_PLAYER)
    if player_is_bot(player=player):  # a bot plays through challenges only
        raise PlayerError.BOT_ACCOUNT(games.BOT_ACCOUNT)
    tournament = locked(tournament_id)
    if not registration_open(tournament, now):
        raise TournamentError.REGISTRATION_CLOSED(REGISTRATION_CLOSED)
    if Registration.objects.filter(tournament=tournament, player=player).exists():
        raise TournamentError.ALREADY_REGISTERED(ALREADY_REGISTERED)
    entry_check(tournament, player, invite_code)
    if Registration.objects.filter(tournament=tournament).count() >= tournament.max_players:
        raise TournamentError.TOURNAMENT_FULL(TOURNAMENT_FULL.format(max_players=tournament.max_players))
    fee = tournament.entry_fee
    if fee > 0:  # through ratings' public chip service (the account lock, the balance check, the ledger)
        chips_move(player=player, amount=-fee, kind=ChipKind.ENTRY_FEE, at=now, refusal=INSUFFICIENT_CHIPS)
        Tournament.objects.filter(pk=tournament.pk).update(prize_pool=F("prize_pool") + fee)
    registration = Registration.objects.create(tournament=tournament, player=player, registered_at=now, fee_paid=fee)
    if tournament.status == TournamentStatus.RUNNING:  # a late arena entry gets a line at once
        standings.standings_add(tournament, [registration])
        standings.rank(tournament)
        lifecycle.arena_seat(tournament, now)
    live.tournament_changed(tournament_id=tournament.pk)
    return registration


@transaction.atomic
def tournament_withdraw(*, tournament_id: int, player, now: datetime | None = None) -> None:
    """Withdraw before the start (DELETE registration); the entry fee is refunded."""
    now = now or timezone.now()
    tournament = locked(tournament_id)
    registration = Registration.objects.filter(tournament=tournament, player=player).first()
    if registration is None:
        raise TournamentError.NOT_REGISTERED(NOT_REGISTERED)
    if tournament.status != TournamentStatus.SCHEDULED:
        raise TournamentError.REGISTRATION_CLOSED(REGISTRATION_CLOSED)
    if registration.fee_paid > 0:
        chips_move(player=player, amount=registration.fee_paid, kind=ChipKind.ENTRY_REFUND, at=now)
        Tournament.objects.filter(pk=tournament.pk).update(prize_pool=F("prize_pool") - registration.fee_paid)
    registration.delete()
    live.tournament_changed(tournament_id=tournament.pk)
