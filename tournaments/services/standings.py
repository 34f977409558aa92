"""The standings: a line per entrant, the tiebreak and the rank (tournaments.core's order), the
projection that counts an ended table, and the rebuild from registrations, byes and ended tables."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from goat.games import projections
from goat.games.projections import EndedGame

from ..core import ZERO, opponents_points, standings_key
from ..models import Bye, Registration, Seating, Standing, Table, Tournament
from . import live
from .base import locked


def standings_add(tournament: Tournament, registrations: Iterable[Registration]) -> None:
    base = Registration.objects.filter(tournament=tournament).order_by("registered_at", "id")
    order = {pk: i for i, pk in enumerate(base.values_list("pk", flat=True), start=1)}
    Standing.objects.bulk_create([
        Standing(tournament=tournament, player=r.player, username=r.player.get_username(),
                 registration_order=order[r.pk], withdrawn=r.withdrawn_at is not None) for r in registrations
    ])


def rank(tournament: Tournament) -> None:
    """Recompute every line's opponents_points (from the lines' points and the recorded tables) and rank.
    The live projection and the rebuild both end here, so both compute the tiebreak the same way."""
    rows = list(Standing.objects.filter(tournament=tournament))
    by_table: dict[int, list[int]] = defaultdict(list)
    for table_id, player_id in (Seating.objects.filter(tournament=tournament, table__recorded_at__isnull=False)
                                .values_list("table_id", "player_id")):
        by_table[table_id].append(player_id)
    buchholz = opponents_points(points={r.player_id: r.points for r in rows}, tables=by_table.values())
    changed: dict[int, Standing] = {}
    for row in rows:
        value = buchholz.get(row.player_id, ZERO)
        if row.opponents_points != value:
            row.opponents_points = value
            changed[row.pk] = row
    rows.sort(key=standings_key)
    for rank, row in enumerate(rows, start=1):
        if row.rank != rank:
            row.rank = rank
            changed[row.pk] = row
    Standing.objects.bulk_update(list(changed.values()), ["rank", "opponents_points"])


STANDINGS = "tournaments.standings"


def table_outcome(ended: EndedGame) -> list[tuple[int, int, bool, int]]:
    """Per seat of an ended game: ``(player id, rating points, goat, game points)``."""
    result, state = ended.state.result, ended.state
    goats = set(result.goats)
    return [(ended.players[seat].pk, result.rating_points[seat], seat in goats, state.points[seat])
            for seat in range(state.seats)]


def _apply_outcome(tournament: Tournament, outcome) -> None:
    for player_id, points, goat, game_points in outcome:
        Standing.objects.filter(tournament=tournament, player_id=player_id).update(
            points=F("points") + points, games=F("games") + 1, goats=F("goats") + int(goat),
            game_points=F("game_points") + game_points)


def standings_project(ended: EndedGame) -> None:
    """Projection ``tournaments.standings``: count a tournament table's ended game in the standings and
    free its players (under the tournament's lock, which every standings writer takes), then advance
    the tournament on commit (seat the next round or waiting players, or finish)."""
    table = Table.objects.filter(game_id=ended.game.pk).first() if ended.game.rated else None
    if table is None:  # not a tournament table (a game with a computer player never is one)
        return
    tournament = locked(table.tournament_id)
    outcome = table_outcome(ended)
    _apply_outcome(tournament, outcome)
    table.recorded_at = timezone.now()
    table.save(update_fields=["recorded_at"])
    Seating.objects.filter(table=table).update(active=False, released_at=ended.game.ended_at)
    for player_id, points, goat, game_points in outcome:
        Seating.objects.filter(table=table, player_id=player_id).update(
            rating_points=points, goat=goat, game_points=game_points)
    rank(tournament)
    live.tournament_changed(tournament_id=tournament.pk)
    transaction.on_commit(lambda: live.queue_advance(tournament.pk))


def record_ended_tables(tournament: Tournament, now: datetime) -> int:
    """Count every ended table that the standings projection has not counted yet (the caller holds
    the lock): the projection itself, tracked, so a table is counted once whoever gets there first."""
    tables = list(Table.objects.filter(tournament=tournament, recorded_at__isnull=True, game__ended_at__isnull=False)
                  .order_by("game__ended_at", "id").values_list("game_id", flat=True))
    return sum(projections.projection_apply(name=STANDINGS, game_id=game_id) for game_id in tables)


@transaction.atomic
def standings_rebuild(*, tournament_id: int) -> int:
    """Recompute the standings of a tournament from its registrations, byes and ended tables alone: the
    standings projection runs again on every ended table (its tracking rows forgotten first)."""
    tournament = locked(tournament_id)
    Standing.objects.filter(tournament=tournament).delete()
    if tournament.started_at is None:  # scheduled, or cancelled before the start: no lines
        return 0
    standings_add(tournament, Registration.objects.filter(tournament=tournament).select_related("player"))
    for bye in Bye.objects.filter(tournament=tournament):
        Standing.objects.filter(tournament=tournament, player_id=bye.player_id).update(
            points=F("points") + bye.points, byes=F("byes") + 1)
    games_ = list(Table.objects.filter(tournament=tournament, game__ended_at__isnull=False)
                  .order_by("game__ended_at", "id").values_list("game_id", flat=True))
    projections.projection_records_forget(names=[STANDINGS], game_ids=games_)
    for game_id in games_:
        projections.projection_apply(name=STANDINGS, game_id=game_id)
    rank(tournament)
    live.tournament_changed(tournament_id=tournament.pk)
    return Standing.objects.filter(tournament=tournament).count()
