"""The organiser's actions on a tournament: cancel it, withdraw a player from it while it runs."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from goat.games import services as games
from goat.web.errors import ServiceError
from ratings.chips import chips_move
from ratings.models import ChipKind
from tournaments.errors import TournamentError

from ..models import Registration, Seating, Standing, Table, Tournament, TournamentRound, TournamentStatus
from . import lifecycle, live, standings
from .base import locked

logger = logging.getLogger(__name__)


TOURNAMENT_ENDED = gettext_lazy("This tournament is {status} already.")


NOT_RUNNING = gettext_lazy("Only a running tournament can be left this way; this one is {status}.")


NOT_RUNNING_SCHEDULED = ("The tournament has not started: withdraw with DELETE /api/tournaments/{id}/registration/ "
                         "(the entry fee is refunded).")


ALREADY_WITHDRAWN = gettext_lazy("{player} has withdrawn from this tournament already.")


PLAYER_NOT_REGISTERED = gettext_lazy("{player} is not registered for this tournament.")


#: the reason of the game_cancelled event of a tournament's games when the tournament is cancelled
CANCEL_REASON = "tournament_cancelled"


@transaction.atomic
def tournament_cancel(*, tournament_id: int, reason: str, now: datetime | None = None) -> Tournament:
    """Staff: cancel a scheduled or running tournament. Status ``cancelled`` with the reason; every
    entry fee paid is refunded (``entry_refund``, the pool emptied); every game still waiting or
    running is cancelled (``game_cancelled`` reason ``tournament_cancelled``: no rating points, stakes
    back); games already ended keep their rating points (a game that ended but is not recorded yet is
    recorded); no prizes. 409 ``tournament_ended`` once finished or cancelled.

    Under the tournament lock, so it runs once; a game's last move racing the cancel either lands
    first (the game ends and counts) or finds the game cancelled (``game_cancel`` appends with the
    version it read): exactly one of the two."""
    now = now or timezone.now()
    tournament = locked(tournament_id)
    if tournament.status not in (TournamentStatus.SCHEDULED, TournamentStatus.RUNNING):
        raise TournamentError.TOURNAMENT_ENDED(TOURNAMENT_ENDED.format(status=tournament.status))
    for game_id in (Table.objects.filter(tournament=tournament, game__ended_at__isnull=True)
                    .order_by("id").values_list("game_id", flat=True)):
        games.game_cancel(game_id=game_id, reason=CANCEL_REASON)
    if tournament.status == TournamentStatus.RUNNING:
        standings.record_ended_tables(tournament, now)  # ended before the cancel: they count
    refunds = Registration.objects.filter(tournament=tournament, fee_paid__gt=0).select_related("player")
    refunded = 0
    for registration in sorted(refunds, key=lambda r: r.player_id):  # lock order: player id
        chips_move(player=registration.player, amount=registration.fee_paid, kind=ChipKind.ENTRY_REFUND, at=now)
        refunded += registration.fee_paid
    Seating.objects.filter(tournament=tournament, active=True).update(active=False, released_at=now)
    TournamentRound.objects.filter(tournament=tournament, finished_at__isnull=True).update(finished_at=now)
    tournament.refresh_from_db(fields=["prize_pool"])
    tournament.prize_pool -= refunded
    tournament.status = TournamentStatus.CANCELLED
    tournament.cancelled_at = now
    tournament.cancel_reason = reason
    tournament.save(update_fields=["prize_pool", "status", "cancelled_at", "cancel_reason"])
    logger.info("tournament %s cancelled: %s", tournament.pk, reason)
    live.tournament_changed(tournament_id=tournament.pk)
    return tournament


@transaction.atomic
def tournament_withdraw_running(*, tournament_id: int, player, by, now: datetime | None = None) -> Registration:
    """Withdraw ``player`` from a running tournament (``by`` the player themself or staff). A seat in a
    running game resigns it (docs/rules.md D-12); they are seated no more (swiss rounds, arena tables);
    their standings line stays, marked withdrawn; the entry fee is not refunded. 409
    ``tournament_not_running`` before the start or after the end, ``already_withdrawn`` the second time;
    404 ``not_registered``.

    Under the tournament lock, as advance: a withdrawal and the seating of the next round are ordered,
    so the player is either not seated or seated and then resigned. The resignation is a game command
    like any: if the game's last move lands first the game ends normally and counts."""
    now = now or timezone.now()
    tournament = locked(tournament_id)
    registration = Registration.objects.filter(tournament=tournament, player=player).first()
    if registration is None:
        detail = (gettext("You are not registered for this tournament.") if by == player else
                  gettext("%(player)s is not registered for this tournament.") % {"player": player.get_username()})
        raise TournamentError.NOT_REGISTERED(detail)
    if tournament.status == TournamentStatus.SCHEDULED:
        raise TournamentError.TOURNAMENT_NOT_RUNNING(NOT_RUNNING_SCHEDULED.replace("{id}", str(tournament.pk)))
    if tournament.status != TournamentStatus.RUNNING:
        raise TournamentError.TOURNAMENT_NOT_RUNNING(NOT_RUNNING.format(status=tournament.status))
    if registration.withdrawn_at is not None:
        raise TournamentError.ALREADY_WITHDRAWN(ALREADY_WITHDRAWN.format(player=player.get_username()))
    registration.withdrawn_at = now
    registration.withdrawn_by = by
    registration.save(update_fields=["withdrawn_at", "withdrawn_by"])
    Standing.objects.filter(tournament=tournament, player=player).update(withdrawn=True)
    seating = (Seating.objects.filter(tournament=tournament, player=player, active=True)
               .select_related("table__game").first())
    if seating is not None and not seating.table.game.ended:
        try:
            games.game_resign(game_id=seating.table.game_id, player=player)
        except ServiceError as exc:  # the game ended meanwhile: its result stands
            if exc.code != "game_not_running":
                raise
    logger.info("tournament %s: player %s withdrawn", tournament.pk, player.pk)
    lifecycle.advance_locked(tournament, now)  # an arena or swiss left without enough players moves on
    live.tournament_changed(tournament_id=tournament.pk)
    return registration
