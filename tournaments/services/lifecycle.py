"""A tournament's life: the start (at its time, or now by staff), each advance (swiss rounds with
their pairing and bye, arena tables for waiting players), the finish with its prizes, and the tick
that advances every running tournament."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_lazy

from goat.games import notify
from goat.games import services as games
from goat.web.errors import ServiceError
from ratings.chips import chips_move
from ratings.models import ChipKind
from tournaments.errors import TournamentError

from ..core import BYE_POINTS, bye_player, opponents_met, prize_amounts, swiss_pairing, table_sizes
from ..models import (
    Bye,
    Prize,
    Registration,
    Seating,
    Standing,
    Table,
    Tournament,
    TournamentFormat,
    TournamentRound,
    TournamentStatus,
)
from . import live, standings
from .base import locked

logger = logging.getLogger(__name__)


NOT_SCHEDULED = gettext_lazy("Only a scheduled tournament can be started; this one is {status}.")


def _open_table(tournament: Tournament, round_: TournamentRound | None, number: int, players: Sequence,
                now: datetime) -> Table:
    """Create the table's game with the tournament's options and seat ``players`` in order (the game
    starts when the last one sits down)."""
    first, *others = players
    game = games.game_create(player=first, ruleset=tournament.ruleset, seats=len(players),
                             options=tournament.options).game
    for player in others:
        games.game_join(game_id=game.pk, player=player)
    table = Table.objects.create(tournament=tournament, round=round_, number=number, game=game, created_at=now)
    Seating.objects.bulk_create([Seating(tournament=tournament, round=round_, table=table, player=p, seat=i)
                                 for i, p in enumerate(players)])
    seated = {"tournament": tournament.pk, "game": game.pk}
    transaction.on_commit(lambda: notify.feed_publish([p.pk for p in players], "tournament_table", seated))
    return table


def _opponents(tournament: Tournament) -> dict[int, set[int]]:
    """Player id -> ids of everyone they already sat with in this tournament."""
    by_table: dict[int, list[int]] = defaultdict(list)
    for table_id, player_id in Seating.objects.filter(tournament=tournament).values_list("table_id", "player_id"):
        by_table[table_id].append(player_id)
    return opponents_met(by_table.values())


def _start_swiss_round(tournament: Tournament, number: int, now: datetime) -> TournamentRound:
    round_ = TournamentRound.objects.create(tournament=tournament, number=number, started_at=now)
    standings = list(Standing.objects.filter(tournament=tournament, withdrawn=False).order_by("rank")
                     .select_related("player"))  # a withdrawn player is seated no more
    players = {s.player_id: s.player for s in standings}
    order = [s.player_id for s in standings]
    sizes = table_sizes(len(order), tournament.table_size)
    if sizes and sizes[-1] == 1:
        had = set(Bye.objects.filter(tournament=tournament).values_list("player_id", flat=True))
        byed = bye_player(order, had)
        order.remove(byed)
        sizes = sizes[:-1]
        Bye.objects.create(tournament=tournament, round=round_, player=players[byed], points=BYE_POINTS)
        Standing.objects.filter(tournament=tournament, player_id=byed).update(
            points=F("points") + BYE_POINTS, byes=F("byes") + 1)
    for number_, table in enumerate(swiss_pairing(order, sizes, _opponents(tournament)), start=1):
        _open_table(tournament, round_, number_, [players[p] for p in table], now)
    logger.info("tournament %s: round %s seated %s tables", tournament.pk, number, len(sizes))
    return round_


def _arena_waiting(tournament: Tournament) -> list:
    """Registered players without an active seat, longest waiting first (registration or last release)."""
    seated = set(Seating.objects.filter(tournament=tournament, active=True).values_list("player_id", flat=True))
    released: dict[int, datetime] = {}
    for player_id, at in (Seating.objects.filter(tournament=tournament, active=False)
                          .values_list("player_id", "released_at")):
        if at is not None and (player_id not in released or at > released[player_id]):
            released[player_id] = at
    registrations = [r for r in Registration.objects.filter(tournament=tournament, withdrawn_at__isnull=True)
                     .select_related("player").order_by("registered_at", "id") if r.player_id not in seated]
    registrations.sort(key=lambda r: (released.get(r.player_id, r.registered_at), r.registered_at, r.id))
    return [r.player for r in registrations]


def arena_seat(tournament: Tournament, now: datetime) -> int:
    waiting = _arena_waiting(tournament)
    size = tournament.table_size
    number = (Table.objects.filter(tournament=tournament).order_by("-number").values_list("number", flat=True)
              .first() or 0)
    opened = 0
    while len(waiting) >= size:
        group, waiting = waiting[:size], waiting[size:]
        number += 1
        _open_table(tournament, None, number, group, now)
        opened += 1
    return opened


@transaction.atomic
def tournament_start(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Start a scheduled tournament whose time has come (a no-op otherwise): standings lines for every
    registered player, then the first round (swiss) or the first tables (arena)."""
    now = now or timezone.now()
    tournament = locked(tournament_id)
    if tournament.status != TournamentStatus.SCHEDULED or tournament.starts_at > now:
        return False
    _start_locked(tournament, now)
    return True


@transaction.atomic
def tournament_start_now(*, tournament_id: int, now: datetime | None = None) -> Tournament:
    """Staff: start a scheduled tournament now, as its scheduled start would (``starts_at`` keeps the
    announced time; ``started_at`` says when it started). 409 ``tournament_not_scheduled`` otherwise."""
    now = now or timezone.now()
    tournament = locked(tournament_id)
    if tournament.status != TournamentStatus.SCHEDULED:
        raise TournamentError.TOURNAMENT_NOT_SCHEDULED(NOT_SCHEDULED.format(status=tournament.status))
    _start_locked(tournament, now)  # which tells the tournament's streams
    return tournament


def _start_locked(tournament: Tournament, now: datetime) -> None:
    tournament.status = TournamentStatus.RUNNING
    tournament.started_at = now
    tournament.save(update_fields=["status", "started_at"])
    standings.standings_add(tournament, Registration.objects.filter(tournament=tournament).select_related("player"))
    standings.rank(tournament)
    logger.info("tournament %s started", tournament.pk)
    advance_locked(tournament, now)
    live.tournament_changed(tournament_id=tournament.pk)


def tournaments_start_due(*, now: datetime | None = None) -> list[int]:
    """Start every scheduled tournament whose ``starts_at`` has passed; returns the ids started."""
    now = now or timezone.now()
    due = Tournament.objects.filter(status=TournamentStatus.SCHEDULED, starts_at__lte=now).values_list("pk", flat=True)
    return [pk for pk in list(due) if tournament_start(tournament_id=pk, now=now)]


@transaction.atomic
def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Record ended games; start the next swiss round when every table of the round has ended, seat
    waiting arena players; finish the tournament when it is over. Idempotent. Returns whether the
    tournament is (now) finished."""
    now = now or timezone.now()
    try:
        tournament = locked(tournament_id)
    except ServiceError:
        return False
    if tournament.status != TournamentStatus.RUNNING:
        return tournament.status == TournamentStatus.FINISHED
    live.tournament_changed(tournament_id=tournament.pk)
    return advance_locked(tournament, now)


def advance_locked(tournament: Tournament, now: datetime) -> bool:
    standings.record_ended_tables(tournament, now)
    if tournament.format == TournamentFormat.SWISS:
        while True:
            current = TournamentRound.objects.filter(tournament=tournament).order_by("-number").first()
            if current is not None:
                if Table.objects.filter(round=current, recorded_at__isnull=True).exists():
                    break
                if current.finished_at is None:
                    current.finished_at = now
                    current.save(update_fields=["finished_at"])
                standings.rank(tournament)
            number = current.number if current else 0
            if number >= tournament.rounds or not Standing.objects.filter(tournament=tournament,
                                                                           withdrawn=False).exists():
                _finish(tournament, now)
                break
            _start_swiss_round(tournament, number + 1, now)
    else:
        if now < tournament.ends_at:
            arena_seat(tournament, now)
        elif not Table.objects.filter(tournament=tournament, recorded_at__isnull=True).exists():
            _finish(tournament, now)
    standings.rank(tournament)
    return tournament.status == TournamentStatus.FINISHED


def _finish(tournament: Tournament, now: datetime) -> None:
    standings.rank(tournament)
    tournament.status = TournamentStatus.FINISHED
    tournament.finished_at = now
    fields = ["status", "finished_at"]
    if tournament.prizes_paid_at is None:
        top = list(Standing.objects.filter(tournament=tournament).order_by("rank").select_related("player")[:3])
        amounts = prize_amounts(tournament.prize_pool, len(top))
        winners = sorted(zip(top, amounts, strict=True), key=lambda pair: pair[0].player_id)  # lock order: player id
        for standing, amount in winners:
            Prize.objects.create(tournament=tournament, player=standing.player, place=standing.rank, amount=amount)
            if amount > 0:
                chips_move(player=standing.player, amount=amount, kind=ChipKind.PRIZE, at=now)
        tournament.prizes_paid_at = now
        fields.append("prizes_paid_at")
    tournament.save(update_fields=fields)
    logger.info("tournament %s finished", tournament.pk)


def tournaments_tick(*, now: datetime | None = None) -> int:
    """Advance every running tournament (arena: seat waiting players, finish after the end time; swiss:
    a safety net for a lost advance task). Returns how many finished."""
    running = list(Tournament.objects.filter(status=TournamentStatus.RUNNING).values_list("pk", flat=True))
    return sum(tournament_advance(tournament_id=pk, now=now) for pk in running)
