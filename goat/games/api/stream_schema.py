"""The OpenAPI operations of the live streams (goat.games.streams): async Django views outside DRF,
added to the document by ``streams_postprocessing_hook`` (settings.SPECTACULAR_SETTINGS)."""

from __future__ import annotations

from goat.web.api.schema import (
    COMMON_PROBLEMS,
    ID_SCHEMA,
    RAISES,
    add_common_headers,
    codes_by_status,
    common_codes,
    problem_codes_apply,
    problem_response_object,
    public_operation,
    raises,
)
from goat.web.errors import ErrorCode, WebError

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


def stream_operation(operation_id: str, summary: str, description: str, parameters: list, statuses: dict,
                     kinds: list[str], with_id: bool, public: bool = False,
                     codes: tuple[ErrorCode, ...] = ()) -> dict:
    """The OpenAPI operation of a stream (the games' and the tournament's): its two formats, its
    message ``kinds``, its refusals (``statuses``: status -> text) and the codes it answers with besides
    those of every request under /api/ (400), of its credentials (401) and of a path naming no object (404)."""
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
    # a stream reads its query itself: ``invalid`` is among ``codes`` where it answers with it
    found = common_codes({"security": operation["security"]}, set(statuses) & {400, 401, 404}, body=False,
                         idempotent=False)
    for status, declared in codes_by_status(raises(*codes)[RAISES]).items():
        found.setdefault(status, set()).update(declared)
    problem_codes_apply(responses, found)
    if public:
        public_operation(operation)
    add_common_headers(responses)
    return {"get": operation}


def streams_postprocessing_hook(result, generator, request, public):
    """drf-spectacular POSTPROCESSING_HOOKS entry: the two stream endpoints of docs/api.md "Live play"."""
    common = {400: COMMON_PROBLEMS[400], 401: COMMON_PROBLEMS[401],
              429: "`too_many_streams`: this token holds the limit of open streams (Retry-After says when to try "
                   "again)."}
    paths = result.setdefault("paths", {})
    paths["/api/games/{game_id}/stream/"] = stream_operation(
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
        ["state", "update"], True, public=True,
        codes=(WebError.INVALID, WebError.THROTTLED, WebError.TOO_MANY_STREAMS))
    paths["/api/stream/"] = stream_operation(
        "player_stream", "Your feed",
        "First `hello` `{games}` (your waiting and running games), then `game_started`, `your_turn`, `game_ended`, "
        "`rematch_offered`, `tournament_table`, `challenge` `{event, by, challenge}` (a challenge naming you was "
        "created, answered, cancelled, expired or started its game) and, with `?lobby=1`, `lobby` "
        "`{game, status, summary}` (a waiting "
        "game was created, took or lost a player, started or was cancelled; `summary`, as the game list shows it, "
        "while it waits; `game` null: anything may have changed).",
        [{"name": "lobby", "in": "query", "required": False,
          "schema": {"type": "string", "enum": ["1", "0", "true", "false"]},
          "description": "`1`: also follow the lobby (for a client showing the open games). Default: not."}],
        common,
        ["hello", "game_started", "your_turn", "game_ended", "rematch_offered", "tournament_table", "challenge",
         "lobby"], False, codes=(WebError.INVALID, WebError.TOO_MANY_STREAMS))
    return result
