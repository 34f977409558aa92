"""OpenAPI pieces of the games API (goat.games.api.views): parameters and examples.

The examples show what the service really answers; tests check them against the rules
(tests/goat/test_schema_examples.py)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from goat.games import services
from goat.web.problems import problem_example
from goat.web.schema import (
    COMMON_PROBLEMS,
    ID_SCHEMA,
    add_common_headers,
    problem_response_object,
    public_operation,
)

GAME_ID = OpenApiParameter("game_id", ID_SCHEMA, OpenApiParameter.PATH, description="The game's id.")
IF_NONE_MATCH = OpenApiParameter("If-None-Match", str, OpenApiParameter.HEADER,
                                 description='The ETag you hold, e.g. "12": 304 if it is still current.')
#: goat.games.api.views.if_match_version
IF_MATCH = OpenApiParameter("If-Match", {"type": "string", "pattern": r'^\s*("\d{1,10}"|\*)\s*$'},
                            OpenApiParameter.HEADER,
                            description='The version you moved on, e.g. "12", or *: 412 version_mismatch if stale, '
                                        '400 invalid_if_match if it is neither.')
ETAG = OpenApiParameter("ETag", str, OpenApiParameter.HEADER, response=[200], description='"<version>"')
ETAG_CREATED = OpenApiParameter("ETag", str, OpenApiParameter.HEADER, response=[201], description='"<version>"')
ETAG_ANSWERED = OpenApiParameter("ETag", str, OpenApiParameter.HEADER, response=[200, 201],
                                 description='"<version>"')
NOT_MODIFIED = OpenApiResponse(description="Not modified: your copy (If-None-Match) is current.")

T0 = "2025-05-01T18:30:00.000000Z"
SEATS_EXAMPLE = [
    {"seat": 0, "player": "alice", "tiles": 7, "open": False, "score": 0, "remembered": 0, "points": 0,
     "computer": False},
    {"seat": 1, "player": "bob", "tiles": 7, "open": False, "score": 0, "remembered": 0, "points": 0,
     "computer": False},
]
#: the options a goat-classic game is created with today (RULES.md §2, second edition)
OPTIONS_EXAMPLE = {
    "hand_size": 7, "redeal": True, "opener": "doubles_from_one_by_sum", "later_leader": "last_winner",
    "bazaar_reserve": 0, "fish": "positional_or_blocked", "lone_double_zero": 10, "scoring": "goat",
    "fish_scoring": "fish_for_all", "open_threshold": 12, "remembered_counts": True, "limit": 101, "rounds": None,
    "ante": 0, "move_time": 30,
}
GAME_EXAMPLE = {
    "id": 42, "ruleset": "goat-classic", "options": OPTIONS_EXAMPLE, "status": "running", "version": 4,
    "round": 1, "turn": 0, "deadline": "2025-05-01T18:30:30Z", "seats": SEATS_EXAMPLE,
    "line": {"tiles": [], "left": None, "right": None}, "bazaar": 14,
    "hand": ["0-3", "1-1", "1-4", "2-5", "3-3", "4-6", "5-5"],
    "legal_moves": [{"tile": "1-1", "end": "left"}], "fish_pot": 0,
    "server_seed_commitment": "9c1185a5c5e9fc54612808977ee8f548b2258d31b3a2c6a1c4c4e8a4f6a1f0b2",
    "server_seed": None, "result": None, "created_at": "2025-05-01T18:29:51Z", "rated": True,
    "computer_level": None, "your_seat": 0, "server_time": "2025-05-01T18:30:02Z", "remaining_ms": 28000,
}
WAITING_EXAMPLE = {
    **GAME_EXAMPLE, "status": "waiting", "version": 2, "round": 0, "turn": None, "deadline": None,
    "seats": [SEATS_EXAMPLE[0] | {"tiles": 0}, SEATS_EXAMPLE[1] | {"player": None, "tiles": 0}],
    "bazaar": 0, "hand": [], "legal_moves": [],
}
#: bob left a waiting three-seat game: his seat is free again, alice keeps seat 0
LEFT_EXAMPLE = {
    **WAITING_EXAMPLE, "version": 4, "your_seat": None, "remaining_ms": None,
    "seats": [*WAITING_EXAMPLE["seats"], SEATS_EXAMPLE[1] | {"seat": 2, "player": None, "tiles": 0}],
}
#: the last seated player left: the game is cancelled (no result) and its seed revealed
CANCELLED_EXAMPLE = {
    **WAITING_EXAMPLE, "status": "cancelled", "version": 5, "your_seat": None, "remaining_ms": None,
    "seats": [SEATS_EXAMPLE[0] | {"player": None, "tiles": 0}, SEATS_EXAMPLE[1] | {"player": None, "tiles": 0}],
    "server_seed": "5f" * 32,
}
MOVE_EXAMPLE = {
    "version": 5,
    "events": [{"seq": 5, "type": "tile_played", "at": T0, "seat": 0, "data": {"tile": "1-1", "end": "left"}}],
    "game": {**GAME_EXAMPLE, "version": 5, "turn": 1, "line": {"tiles": ["1-1"], "left": 1, "right": 1},
             "seats": [SEATS_EXAMPLE[0] | {"tiles": 6}, SEATS_EXAMPLE[1]],
             "hand": ["0-3", "1-4", "2-5", "3-3", "4-6", "5-5"], "legal_moves": []},
}
EVENTS_EXAMPLE = {
    "version": 4,
    "events": [
        {"seq": 1, "type": "game_created", "at": T0, "seat": None,
         "data": {"ruleset": "goat-classic", "options": OPTIONS_EXAMPLE, "seats": 2,
                  "server_seed_commitment": GAME_EXAMPLE["server_seed_commitment"]}},
        {"seq": 2, "type": "seat_taken", "at": T0, "seat": 0,
         "data": {"seat": 0, "player": "alice", "client_seed": ""}},
        {"seq": 3, "type": "seat_taken", "at": T0, "seat": 1,
         "data": {"seat": 1, "player": "bob", "client_seed": "x7"}},
        {"seq": 4, "type": "round_dealt", "at": T0, "seat": None,
         "data": {"round": 1, "attempt": 0, "hands": [GAME_EXAMPLE["hand"], 7], "bazaar": 14, "void": False}},
    ],
}
#: bob reached the limit; alice ended with 30 points: (100 - 30) / 10 = 7 (RULES.md §9); no ante in goat-classic
RESULT_EXAMPLE = {"reason": "limit", "goats": [1], "winners": [0], "rating_points": [7, 0], "chips": [0, 0]}
SUMMARY_EXAMPLE = {
    "id": 42, "ruleset": "goat-classic", "status": "finished", "seat_count": 2,
    "seats": [{"seat": 0, "player": "alice", "computer": False}, {"seat": 1, "player": "bob", "computer": False}],
    "version": 211, "round": 6, "turn": None, "created_at": "2025-05-01T18:29:51Z",
    "ended_at": "2025-05-01T18:52:10Z", "result": RESULT_EXAMPLE, "rated": True,
}
#: alice against two strong computers (seats 1 and 2): unrated, running at once, a computer to lead
COMPUTER_EXAMPLE = {
    **GAME_EXAMPLE, "version": 5, "turn": 2, "rated": False, "computer_level": "strong", "legal_moves": [],
    "bazaar": 7,
    "seats": [SEATS_EXAMPLE[0], SEATS_EXAMPLE[1] | {"player": "computer-1", "computer": True},
              SEATS_EXAMPLE[1] | {"seat": 2, "player": "computer-2", "computer": True}],
}

NOT_FOUND = problem_example(404, "not_found", services.GAME_NOT_FOUND)
NOT_SEATED = problem_example(403, "not_seated", services.NOT_SEATED)
NOT_ENDED = problem_example(409, "game_not_ended", services.GAME_NOT_ENDED)


# --- the live streams (async Django views, outside DRF: added to the schema by this hook) ----------

_STREAM_MESSAGES = (
    "Server-Sent Events (`text/event-stream`, the default) or NDJSON (`Accept: application/x-ndjson`, the "
    "message name in `kind`). A keep-alive at least every 15 s. Refusals are problem details before the "
    "stream starts."
)


def _sse_event(kinds: list[str], with_id: bool) -> dict:
    """One Server-Sent Event as schemathesis and OpenAPI 3.0 read an event stream's schema: each event
    is ``{"event", "data", "id"}``; ``data`` is the message's JSON text."""
    properties: dict = {"event": {"type": "string", "enum": kinds},
                        "data": {"type": "string", "description": "The message as JSON text."}}
    if with_id:
        properties["id"] = {"type": "string", "pattern": r"^[0-9]+$", "description": "The game's version."}
    return {"type": "object", "required": ["event", "data"], "properties": properties}


def _ndjson_line(kinds: list[str]) -> dict:
    return {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string", "enum": kinds}},
            "description": "One message per line, its name in `kind`; an empty line is a keep-alive."}


def _stream_operation(operation_id: str, summary: str, description: str, parameters: list, statuses: dict,
                      kinds: list[str], with_id: bool, public: bool = False) -> dict:
    responses = {
        "200": {"description": "The stream.",
                "content": {"text/event-stream": {"schema": _sse_event(kinds, with_id)},
                            "application/x-ndjson": {"schema": _ndjson_line(kinds)}}},
        **{str(code): problem_response_object(text) for code, text in statuses.items()},
    }
    operation = {
        "operationId": operation_id, "summary": summary, "description": f"{description}\n\n{_STREAM_MESSAGES}",
        "tags": ["streams"], "parameters": parameters,
        "security": [{"tokenAuth": []}, {"cookieAuth": []}, *([{}] if public else [])],
        "responses": responses,
    }
    if public:
        public_operation(operation)
    add_common_headers(responses)
    return {"get": operation}


def streams_postprocessing_hook(result, generator, request, public):
    """drf-spectacular POSTPROCESSING_HOOKS entry: the two stream endpoints of API.md "Live streams"."""
    common = {400: COMMON_PROBLEMS[400], 401: COMMON_PROBLEMS[401],
              429: "`too_many_streams`: this token holds the limit of open streams (Retry-After says when to try "
                   "again)."}
    paths = result.setdefault("paths", {})
    paths["/api/games/{game_id}/stream/"] = _stream_operation(
        "games_stream", "Follow a game",
        "First `state` (your game view), then one `update` `{version, events, game}` per committed command; "
        "closes after the update that ends the game. SSE ids are versions: resume with `Last-Event-ID` or "
        "`?after=`.",
        [{"name": "game_id", "in": "path", "required": True, "schema": dict(ID_SCHEMA)},
         {"name": "after", "in": "query", "required": False,
          "schema": {"type": "integer", "minimum": 0, "maximum": 9999999999},
          "description": "Resume after this version (at most the game's version: 400 `invalid` beyond it)."},
         {"name": "Last-Event-ID", "in": "header", "required": False,
          "schema": {"type": "string", "pattern": r"^\s*\d{0,10}\s*$"},
          "description": "The id of the last message you received (a version); ignored when `after` is given."}],
        {**common, 400: "`invalid`: `after` or Last-Event-ID is not a version of this game.",
         404: "`not_found`: no game with that id.",
         429: f"{common[429]} Anonymous: over the `anon` rate limit (`throttled`), or the address holds the "
              "limit of open streams (`too_many_streams`)."},
        ["state", "update"], True, public=True)
    paths["/api/stream/"] = _stream_operation(
        "player_stream", "Your feed",
        "First `hello` `{games}` (your waiting and running games), then `game_started`, `your_turn`, `game_ended`, "
        "`rematch_offered` and `tournament_table`.", [], common,
        ["hello", "game_started", "your_turn", "game_ended", "rematch_offered", "tournament_table"], False)
    return result
