"""Reads of the pages that gather several apps (home, player, game): each calls the selectors of the
app that owns the data, so what a page shows is what the API shows, redaction included.

Every read is a bounded number of queries whatever the data size (tests/pages/test_queries.py).
"""

from __future__ import annotations

from typing import Any

from goat.games import records, verification
from goat.games import selectors as games
from goat.games import table as tables
from goat.games.models import Game
from goat.games.viewer import Viewer
from ratings import selectors as ratings
from tournaments import selectors as tournaments
from tournaments.models import TournamentStatus

from .charts import rating_chart

HOME_TOURNAMENTS = 10
HOME_UPCOMING = 5
HOME_TOP = 10
HOME_GAMES = 10


def game_summary(game: Game) -> dict[str, Any]:
    """A game for a list: its players in seat order, each marked winner or goat once it has ended
    (``seat_set`` prefetched with players: games.seats_prefetch)."""
    result = game.result or {}
    goats, winners = set(result.get("goats", ())), set(result.get("winners", ()))
    return {
        "id": game.pk, "ruleset": game.ruleset, "status": game.status, "created_at": game.created_at,
        "ended_at": game.ended_at, "reason": result.get("reason"),
        "seats": [{"seat": s.seat, "player": s.player.get_username(), "goat": s.seat in goats,
                   "winner": s.seat in winners, "computer": game.computer_seat(s.seat), "bot": game.bot_seat(s.seat)}
                  for s in game.seat_set.all()],
        "rated": game.rated,
    }


def home() -> dict[str, Any]:
    """What is on now: running tournaments, the next scheduled ones, the top of the main board (all
    rulesets, all time) and the games that ended last."""
    return {
        "running": list(tournaments.tournament_list(status=TournamentStatus.RUNNING)[:HOME_TOURNAMENTS]),
        "upcoming": list(tournaments.tournament_list(status=TournamentStatus.SCHEDULED)
                         .order_by("starts_at", "id")[:HOME_UPCOMING]),
        "top": ratings.ranked(list(ratings.rating_board(period="all", ruleset=None)[0:HOME_TOP]), 0),
        "games": [game_summary(g) for g in games.games_recent_ended(limit=HOME_GAMES)],
    }


def player(*, user) -> dict[str, Any]:
    """The player page's head: the line on each all-time board (``*`` = all rulesets), the skill per
    ruleset and a rating-history chart per ruleset. Three queries."""
    boards = ratings.player_boards(player=user)
    skill = ratings.player_skill(player=user)
    history = ratings.rating_history(player=user, totals={rs: b["rating"] for rs, b in boards.items()})
    rulesets = sorted({*boards, *skill} - {ratings.ALL_RULESETS})
    return {
        "player": user, "overall": boards.get(ratings.ALL_RULESETS),
        "rulesets": [{"ruleset": rs, "board": boards.get(rs), "skill": skill.get(rs),
                      "chart": rating_chart(history[rs]) if history.get(rs) else None} for rs in rulesets],
    }


def player_game_rows(*, user, games_page) -> list[dict[str, Any]]:
    """The games of a page of ``games.player_games``, each with the player's seat, game points (from
    the game's snapshot, no query), result and rating points (one query for the page)."""
    page_games = list(games_page)
    rating_points = ratings.rating_points_of(player=user, game_ids=[g.pk for g in page_games])
    rows = []
    for game in page_games:
        row = game_summary(game)
        seat = next((s for s in row["seats"] if s["player"] == user.get_username()), None)
        points = games.game_state(game=game).points if game.version else ()
        row.update(
            seat=seat, points=points[seat["seat"]] if seat and seat["seat"] < len(points) else None,
            rating_points=rating_points.get(game.pk),
            outcome=None if not game.ended or game.result is None or seat is None
            else "goat" if seat["goat"] else "won" if seat["winner"] else "played")
        rows.append(row)
    return rows


def game(*, game: Game, user) -> dict[str, Any]:
    """The game page's table as ``user`` may see it: the API's game view (the same selector as GET
    /api/games/{id}/: a seated player's own hand, nobody else's while it runs), the table model
    (goat.games.table.table_model: the line, the notes, the result, the scoresheet, as the play page
    and the admin draw them) and the tournament table it belongs to."""
    state = games.game_state(game=game)
    viewer = Viewer.of(game, user)
    view = games.game_view(game=game, state=state, seat=viewer.seat)
    model = tables.table_model(game=game, viewer=viewer, state=state, view=view)
    seats = [{**s, "client_seed": state.client_seeds[s["seat"]] if s["seat"] < len(state.client_seeds) else None}
             for s in model["seats"]]
    return {
        "game": game, "view": view, "seats": seats, "ended": game.ended, "model": model,
        "clock_seconds": view["remaining_ms"] // 1000 if view["remaining_ms"] is not None else None,
        "table": tournaments.table_of_game(game_id=game.pk),
    }


def fairness(*, game: Game, view: dict[str, Any]) -> dict[str, Any]:
    """The fairness panel of an ended game (``view``: its game view): the commitment published at
    creation, the server seed revealed at the end, and whether the stored game checks out
    (goat.games.verification, the same check as the API's /verify/)."""
    return {"commitment": view["server_seed_commitment"], "server_seed": view["server_seed"],
            "verification": verification.game_verify(game=game), "file": f"game-{game.pk}.json",
            "record_file": records.record_filename(game)}
