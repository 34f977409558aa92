"""The OpenAPI document of the tournaments API: example bodies, path parameters, and the tournament
stream's operation (an async Django view outside DRF, added by a postprocessing hook)."""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiParameter,
)

from goat.games.api.stream_schema import stream_operation
from goat.web.problems import problem_example
from goat.web.schema import COMMON_PROBLEMS, ID_SCHEMA

from .. import services

# --- examples ----------------------------------------------------------------------------------

TOURNAMENT_EXAMPLE = {
    "id": 7, "name": "Friday swiss", "ruleset": "goat-classic", "options": {"limit": 101, "ante": 0, "...": "..."},
    "format": "swiss", "rounds": 3, "table_size": 4, "starts_at": "2025-06-06T18:00:00Z", "duration_minutes": 0,
    "max_players": 32, "entry_fee": 50, "status": "scheduled", "created_by": "director", "started_at": None,
    "finished_at": None, "ends_at": None, "prize_pool": 500, "players": 10,
    "entry": {"min_games": 10, "min_rating": None, "max_rating": 400, "invite_only": False},
    "cancelled_at": None, "cancel_reason": "",
}
DETAIL_EXAMPLE = {
    **TOURNAMENT_EXAMPLE, "status": "running", "started_at": "2025-06-06T18:00:02Z",
    "played_rounds": [{"number": 1, "started_at": "2025-06-06T18:00:02Z", "finished_at": None, "bye": None}],
    "tables": [{"round": 1, "number": 1, "game": 412, "status": "running",
                "players": ["alice", "bob", "carol", "dave"], "turn": 2, "points": [13, 0, 4, 21], "result": None}],
    "prizes": [],
}
STANDING_EXAMPLE = {"rank": 1, "player": "alice", "points": 17, "games": 2, "withdrawn": False,
                    "tiebreaks": {"goats": 0, "opponents_points": 23.5, "game_points": 38, "byes": 0,
                                  "registration_order": 3}}
NOT_FOUND = problem_example(404, "not_found", services.TOURNAMENT_NOT_FOUND)
TOURNAMENT_ID = OpenApiParameter("tournament_id", ID_SCHEMA, OpenApiParameter.PATH,
                                 description="The tournament's id.")




CROSSTABLE_EXAMPLE = {"player": "alice", "rank": 1, "withdrawn": False, "games": [
    {"round": 1, "table": 1, "game": 412, "status": "finished", "opponents": ["bob", "carol", "dave"],
     "points": 13, "rating_points": 9, "goat": False},
    {"round": 2, "table": 1, "game": 417, "status": "finished", "opponents": ["carol", "erin"],
     "points": 64, "rating_points": 4, "goat": False},
]}
PLAYER_TOURNAMENT_EXAMPLE = {"tournament": 7, "name": "Friday swiss", "status": "finished", "format": "swiss",
                             "starts_at": "2025-06-06T18:00:00Z", "rank": 2, "points": 21, "games": 3,
                             "withdrawn": False}
RESULTS_EXAMPLE = ("rank,player,points,games,goats,opponents_points,game_points,registration_order,byes,"
                   "withdrawn,prize\r\n1,alice,21,3,0,34.50,120,3,0,false,500\r\n"
                   "2,bob,21,3,0,29.33,96,1,0,false,300\r\n")




# --- the tournament stream (an async Django view outside DRF: added to the schema by this hook) ----


def stream_postprocessing_hook(result, generator, request, public):
    """drf-spectacular POSTPROCESSING_HOOKS entry: ``GET /api/tournaments/{id}/stream/`` (tournaments/streams.py)."""
    operation = stream_operation(
        "tournaments_stream", "Follow a tournament",
        "Anyone may follow it. First `state`: the tournament as GET shows it with the first page of its standings "
        "(`standings`: `{count, results}`); then `update`, of the same shape, whenever a table starts or ends or "
        "the standings change; closes after the update that finishes the tournament. SSE ids are digests of the "
        "message: resume with `Last-Event-ID` or `?after=` (nothing until the next change if you had the latest, "
        "else one `update`).",
        [{"name": "tournament_id", "in": "path", "required": True, "schema": dict(ID_SCHEMA)},
         {"name": "after", "in": "query", "required": False, "schema": {"type": "string", "maxLength": 64},
          "description": "The id of the last message you received (wins over Last-Event-ID)."},
         {"name": "Last-Event-ID", "in": "header", "required": False, "schema": {"type": "string", "maxLength": 64},
          "description": "The id of the last message you received."}],
        {400: COMMON_PROBLEMS[400],
         401: "`authentication_failed`: a token was given and is not valid (give none to follow anonymously).",
         404: "`not_found`: no tournament with that id.",
         429: "`too_many_streams`: your token, your session or your address holds the limit of open streams "
              "(Retry-After says when to try again)."},
        ["state", "update"], False, public=True)  # {} among its security requirements: anonymous too
    get = operation["get"]
    sse = get["responses"]["200"]["content"]["text/event-stream"]["schema"]
    sse["properties"]["id"] = {"type": "string", "pattern": "^[0-9a-f]{16}$", "description": "A digest of the message."}
    result.setdefault("paths", {})["/api/tournaments/{tournament_id}/stream/"] = operation
    return result
