"""Tournament reads, shared by the API and the public pages."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet

from goat.games.models import Game
from goat.games.selectors import game_state

from .models import Bye, Registration, Standing, Table, Tournament, TournamentRound, TournamentStatus


def tournament_list(*, status: str | None = None) -> QuerySet[Tournament]:
    qs = Tournament.objects.select_related("created_by").annotate(players=Count("registrations"))
    if status:
        qs = qs.filter(status=status)
    return qs.order_by("-starts_at", "-id")


def tournament_get(*, tournament_id: int) -> Tournament | None:
    return tournament_list().filter(pk=tournament_id).first()


def table_view(table: Table) -> dict[str, Any]:
    """A table with its game's live status: players in seat order, whose turn, points per seat."""
    game: Game = table.game
    seats = sorted(table.game.seat_set.all(), key=lambda s: s.seat)
    points = [0] * game.seats
    if game.version:
        try:
            state = game_state(game=game)
            points = state.points or points
        except LookupError:
            pass
    return {
        "round": table.round.number if table.round_id else None,
        "number": table.number,
        "game": game.pk,
        "status": game.status,
        "players": [s.player.get_username() for s in seats],
        "turn": game.turn,
        "points": points,
        "result": game.result,
    }


def tournament_tables(*, tournament: Tournament) -> list[dict[str, Any]]:
    tables = (Table.objects.filter(tournament=tournament).select_related("round", "game")
              .prefetch_related("game__seat_set__player").order_by("round__number", "number"))
    return [table_view(t) for t in tables]


def tournament_rounds(*, tournament: Tournament) -> list[dict[str, Any]]:
    byes = {b.round_id: b.player.get_username() for b in Bye.objects.filter(tournament=tournament)
            .select_related("player")}
    return [{"number": r.number, "started_at": r.started_at, "finished_at": r.finished_at, "bye": byes.get(r.pk)}
            for r in TournamentRound.objects.filter(tournament=tournament).order_by("number")]


def standing_row(s: Standing) -> dict[str, Any]:
    return {"rank": s.rank, "player": s.username, "points": s.points, "games": s.games,
            "tiebreaks": {"goats": s.goats, "game_points": s.game_points, "byes": s.byes,
                          "registration_order": s.registration_order}}


def tournament_standings(*, tournament: Tournament) -> list[Standing]:
    """The standings in rank order; before the start, the registered players in registration order."""
    if tournament.status == TournamentStatus.SCHEDULED:
        registrations = Registration.objects.filter(tournament=tournament).select_related("player")
        return [Standing(tournament=tournament, player=r.player, username=r.player.get_username(),
                         registration_order=i, rank=i) for i, r in enumerate(registrations, start=1)]
    return list(Standing.objects.filter(tournament=tournament).order_by("rank"))


def tournament_dict(t: Tournament) -> dict[str, Any]:
    return {
        "id": t.pk, "name": t.name, "ruleset": t.ruleset, "options": t.options, "format": t.format,
        "rounds": t.rounds, "table_size": t.table_size, "starts_at": t.starts_at,
        "duration_minutes": t.duration_minutes, "max_players": t.max_players, "entry_fee": t.entry_fee,
        "status": t.status, "created_by": t.created_by.get_username(), "started_at": t.started_at,
        "finished_at": t.finished_at, "ends_at": t.ends_at if t.format == "arena" else None,
        "prize_pool": t.prize_pool,
        "players": getattr(t, "players", None) if getattr(t, "players", None) is not None
        else t.registrations.count(),
    }


def tournament_detail(t: Tournament) -> dict[str, Any]:
    prizes = [{"place": p.place, "player": p.player.get_username(), "amount": p.amount}
              for p in t.prizes.select_related("player").order_by("place")]
    return {**tournament_dict(t), "played_rounds": tournament_rounds(tournament=t),
            "tables": tournament_tables(tournament=t), "prizes": prizes}


def table_of_game(*, game_id: int) -> dict[str, Any] | None:
    """The tournament table ``game_id`` is played at (``{"tournament", "name", "round", "number"}``),
    or None for a game outside tournaments. One query."""
    table = (Table.objects.filter(game_id=game_id).select_related("tournament", "round")
             .only("number", "tournament__id", "tournament__name", "round__number").first())
    if table is None:
        return None
    return {"tournament": table.tournament.pk, "name": table.tournament.name,
            "round": table.round.number if table.round_id else None, "number": table.number}
