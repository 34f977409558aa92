"""Tournament reads, shared by the API and the public pages."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from goat.games.models import Game
from goat.games.selectors import game_state

from .models import Bye, Registration, Seating, Standing, Table, Tournament, TournamentRound


def tournament_list(*, status: str | None = None) -> QuerySet[Tournament]:
    """Tournaments, latest start first, each with its number of registered ``players``.

    ``players`` is a count per row (through the index on registrations by tournament), so a
    page of the list reads the registrations of its own tournaments only, and the pagination's count
    is a count of tournaments: a join with every registration grouped by tournament would read them
    all before the page is cut. The order is an index scan (tournament_list_idx, or tournament_due_idx
    with a status)."""
    registered = (Registration.objects.filter(tournament=OuterRef("pk")).order_by().values("tournament")
                  .annotate(n=Count("pk")).values("n"))
    qs = Tournament.objects.select_related("created_by").annotate(players=Coalesce(Subquery(registered), 0))
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
    """A standings line as the API shows it: rank, player, points, games, withdrawn and every tiebreak."""
    return {"rank": s.rank, "player": s.username, "points": s.points, "games": s.games, "withdrawn": s.withdrawn,
            "tiebreaks": {"goats": s.goats, "opponents_points": float(s.opponents_points),
                          "game_points": s.game_points, "byes": s.byes,
                          "registration_order": s.registration_order}}


def tournament_standings(*, tournament: Tournament) -> list[Standing]:
    """The standings in rank order; before the start, the registered players in registration order."""
    if tournament.started_at is None:  # scheduled (or cancelled before the start): no lines yet
        registrations = Registration.objects.filter(tournament=tournament).select_related("player")
        return [Standing(tournament=tournament, player=r.player, username=r.player.get_username(),
                         registration_order=i, rank=i) for i, r in enumerate(registrations, start=1)]
    return list(Standing.objects.filter(tournament=tournament).order_by("rank"))


# --- crosstable, results, a player's tournaments ------------------------------------------------


def tournament_crosstable(*, tournament: Tournament, standings: Sequence[Standing] | None = None
                          ) -> list[dict[str, Any]]:
    """Crosstable rows for ``standings`` (default: every line, in standings order): per player
    ``{"player", "rank", "withdrawn", "games": [...]}``, the games in play order (table creation, then
    table number), each ``{"round", "table", "game", "status", "opponents", "points", "rating_points",
    "goat"}``: ``points`` are the player's game points at the end (§7), ``rating_points`` what the
    game gave them in the standings, ``goat`` whether they were among its goats; the three are null
    until the game is recorded. ``round`` is null in an arena; a bye is no game. Two queries per call."""
    if standings is None:
        standings = tournament_standings(tournament=tournament)
    ids = [s.player_id for s in standings]
    mine = list(Seating.objects.filter(tournament=tournament, player_id__in=ids)
                .select_related("table", "table__game", "round").order_by("table__created_at", "table__round__number",
                                                                            "table__number", "table_id"))
    at_table: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for table_id, seat, username in (Seating.objects.filter(table_id__in={m.table_id for m in mine})
                                     .order_by("table_id", "seat").values_list("table_id", "seat",
                                                                               "player__username")):
        at_table[table_id].append((seat, username))
    games: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for m in mine:
        games[m.player_id].append({
            "round": m.round.number if m.round_id else None,
            "table": m.table.number,
            "game": m.table.game_id,
            "status": m.table.game.status,
            "opponents": [name for seat, name in at_table[m.table_id] if seat != m.seat],
            "points": m.game_points,
            "rating_points": m.rating_points,
            "goat": m.goat,
        })
    return [{"player": s.username, "rank": s.rank, "withdrawn": s.withdrawn, "games": games.get(s.player_id, [])}
            for s in standings]


#: the columns of results.csv, in order (every tiebreak, in the order they apply)
RESULTS_COLUMNS = ("rank", "player", "points", "games", "goats", "opponents_points", "game_points",
                   "registration_order", "byes", "withdrawn", "prize")


def tournament_results_rows(*, tournament: Tournament) -> list[dict[str, Any]]:
    """One row per player in standings order with every tiebreak (``RESULTS_COLUMNS``): results.csv."""
    prizes = dict(tournament.prizes.values_list("player_id", "amount"))
    return [{"rank": s.rank, "player": s.username, "points": s.points, "games": s.games, "goats": s.goats,
             "opponents_points": s.opponents_points, "game_points": s.game_points,
             "registration_order": s.registration_order, "byes": s.byes, "withdrawn": s.withdrawn,
             "prize": prizes.get(s.player_id, 0)}
            for s in tournament_standings(tournament=tournament)]


def player_tournaments(*, player) -> QuerySet[Registration]:
    """The tournaments ``player`` entered, latest start first, each registration annotated with its
    standings line (``rank``, ``points``, ``games``, ``withdrawn_line``; null before the start)."""
    line = Standing.objects.filter(tournament_id=OuterRef("tournament_id"), player_id=OuterRef("player_id"))
    return (Registration.objects.filter(player=player).select_related("tournament")
            .annotate(rank=Subquery(line.values("rank")[:1]), points=Subquery(line.values("points")[:1]),
                      games=Subquery(line.values("games")[:1]))
            .order_by("-tournament__starts_at", "-tournament_id"))


def player_tournament_row(r: Registration) -> dict[str, Any]:
    """A row of ``player_tournaments`` as the API shows it."""
    t = r.tournament
    return {"tournament": t.pk, "name": t.name, "status": t.status, "format": t.format,
            "starts_at": t.starts_at, "rank": getattr(r, "rank", None), "points": getattr(r, "points", None) or 0,
            "games": getattr(r, "games", None) or 0, "withdrawn": r.withdrawn_at is not None}


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
        "entry": tournament_entry(t),
        "cancelled_at": t.cancelled_at, "cancel_reason": t.cancel_reason,
    }


def tournament_entry(t: Tournament) -> dict[str, Any]:
    """The entry conditions as shown to anyone: the invite code only as ``invite_only``, never itself."""
    return {"min_games": t.entry_min_games, "min_rating": t.entry_min_rating, "max_rating": t.entry_max_rating,
            "invite_only": bool(t.invite_code_digest)}


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
