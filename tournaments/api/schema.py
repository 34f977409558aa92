"""The OpenAPI document of the tournaments API: example bodies, path parameters, each view's operation
(``@schema.tournaments_list`` and so on, applied in views.py and schedules.py), and the tournament
stream's operation (an async Django view outside DRF, added by a postprocessing hook)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema

from goat.games.api.stream_schema import stream_operation
from goat.games.errors import RulesRefusal
from goat.players.errors import PlayerError
from goat.web.api.problems import problem_example, problem_responses
from goat.web.api.schema import COMMON_PROBLEMS, ID_SCHEMA, IDEMPOTENCY_KEY, IN_PROGRESS, UNAUTHENTICATED, raises
from goat.web.errors import WebError
from ratings.errors import RatingError

from .. import access, selectors, services
from ..access import IsStaff, IsStaffForPost
from ..errors import TournamentError
from .serializers import (
    STATUS_CHOICE,
    STATUSES,
    CancelSerializer,
    CrosstableRowSerializer,
    PlayerTournamentSerializer,
    RegisterBodySerializer,
    RegistrationSerializer,
    ScheduleCreateSerializer,
    ScheduleSerializer,
    ScheduleUpdateSerializer,
    StandingSerializer,
    TournamentCreateSerializer,
    TournamentDetailSerializer,
    TournamentSerializer,
    WithdrawnSerializer,
    WithdrawSerializer,
)

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
        ["state", "update"], False, public=True,  # {} among its security requirements: anonymous too
        codes=(WebError.THROTTLED, WebError.TOO_MANY_STREAMS))
    get = operation["get"]
    sse = get["responses"]["200"]["content"]["text/event-stream"]["schema"]
    sse["properties"]["id"] = {"type": "string", "pattern": "^[0-9a-f]{16}$", "description": "A digest of the message."}
    result.setdefault("paths", {})["/api/tournaments/{tournament_id}/stream/"] = operation
    return result


# --- the operations (``@schema.<operation id>`` in views.py and schedules.py) -----------------

WITHDRAW_EXAMPLE = {"tournament": 7, "player": "bob", "withdrawn_at": "2025-06-06T18:42:10Z",
                    "withdrawn_by": "bob"}

SCHEDULE_TEMPLATE = {"name": "Nightly arena", "ruleset": "goat-classic", "format": "arena", "table_size": 2,
                     "duration_minutes": 60, "max_players": 100, "entry_fee": 10}
SCHEDULE_EXAMPLE = {"id": 3, "template": {**SCHEDULE_TEMPLATE, "options": {}, "rounds": 0, "entry": {}},
                    "first_start": "2025-06-01T21:00:00Z", "every": "P1D", "announce_before": "PT12H",
                    "active": True, "created_by": "director", "created_at": "2025-05-30T10:00:00Z",
                    "tournaments": 4}
SCHEDULE_ID = OpenApiParameter("schedule_id", ID_SCHEMA, OpenApiParameter.PATH, description="The schedule's id.")
EVERY_TOO_SHORT = "The period must be at least 5 minutes (PT5M)."


tournaments_list = extend_schema(
    operation_id="tournaments_list",
    summary="List tournaments",
    description="Tournaments, latest start first, optionally by `status`.",
    parameters=[OpenApiParameter("status", str, enum=STATUSES,
                                 description="scheduled, running, finished or cancelled.")],
    responses={200: TournamentSerializer(many=True), **problem_responses(400, 401, 404)},
    examples=[
        OpenApiExample("tournaments", value=TOURNAMENT_EXAMPLE, response_only=True, status_codes=["200"]),
        problem_example(400, "invalid", "status: " + STATUS_CHOICE, {"status": [STATUS_CHOICE]}),
        UNAUTHENTICATED,
        problem_example(404, "not_found", "Invalid page."),
    ],
    tags=["tournaments"],
)

tournaments_create = extend_schema(
    operation_id="tournaments_create",
    summary="Create a tournament (staff)",
    description="Schedule a swiss (`rounds` rounds) or an arena (`duration_minutes` long). The options are "
                "resolved for `table_size` seats (400 `invalid_options`); tournament games have no ante.",
    parameters=[IDEMPOTENCY_KEY],
    request=TournamentCreateSerializer,
    responses={201: TournamentSerializer, **problem_responses(400, 401, 403, 409, 422)},
    examples=[
        OpenApiExample("swiss", request_only=True, value={
            "name": "Friday swiss", "ruleset": "goat-classic", "options": {"limit": 101}, "format": "swiss",
            "rounds": 3, "table_size": 4, "starts_at": "2025-06-06T18:00:00Z", "max_players": 32,
            "entry_fee": 50}),
        OpenApiExample("arena", request_only=True, value={
            "name": "Sunday arena", "ruleset": "goat-classic", "format": "arena", "table_size": 2,
            "starts_at": "2025-06-08T15:00:00Z", "duration_minutes": 60, "max_players": 100}),
        OpenApiExample("beginners, by invitation", request_only=True, value={
            "name": "Beginners' swiss", "ruleset": "goat-classic", "format": "swiss", "rounds": 3,
            "table_size": 4, "starts_at": "2025-06-06T18:00:00Z", "max_players": 16,
            "entry": {"min_games": 5, "max_rating": 300, "invite_code": "river-7731"}}),
        OpenApiExample("created", value=TOURNAMENT_EXAMPLE, response_only=True, status_codes=["201"]),
        problem_example(400, "invalid_options", services.NO_ANTE),
        UNAUTHENTICATED,
        problem_example(403, "permission_denied", IsStaffForPost.message),
        IN_PROGRESS,
        problem_example(422, "idempotency_key_reused", "This Idempotency-Key was used for a different request."),
    ],
    extensions=raises(RulesRefusal.INVALID_OPTIONS),
    tags=["tournaments"],
)

tournaments_retrieve = extend_schema(
    operation_id="tournaments_retrieve",
    summary="A tournament",
    description="The tournament with its rounds (and byes), every table with its game id, live game status, "
                "whose turn and points per seat, and the prizes once it has finished.",
    parameters=[TOURNAMENT_ID],
    responses={200: TournamentDetailSerializer, **problem_responses(401, 404)},
    examples=[
        OpenApiExample("running swiss", value=DETAIL_EXAMPLE, response_only=True, status_codes=["200"]),
        UNAUTHENTICATED,
        NOT_FOUND,
    ],
    tags=["tournaments"],
)

tournaments_register = extend_schema(
    operation_id="tournaments_register",
    summary="Register",
    description="Enter the tournament; the entry fee is debited from your chips into the prize pool. "
                "Swiss: before the start. Arena: also while it runs (you wait for the next free table). "
                "A tournament with an invite code needs it in the body (403 `invite_code_required` / "
                "`invite_code_wrong`); entry conditions on the ruleset's all-time board are 422 "
                "`entry_condition_not_met`, the detail naming the condition.",
    parameters=[TOURNAMENT_ID],
    request=RegisterBodySerializer,
    responses={201: RegistrationSerializer, **problem_responses(401, 403, 404, 409, 422)},
    examples=[
        OpenApiExample("with an invite code", request_only=True, value={"invite_code": "river-7731"}),
        OpenApiExample("registered", response_only=True, status_codes=["201"],
                       value={"tournament": 7, "player": "alice", "registered_at": "2025-06-01T12:00:00Z",
                              "fee_paid": 50}),
        UNAUTHENTICATED,
        problem_example(403, "invite_code_required", services.INVITE_CODE_REQUIRED),
        problem_example(403, "invite_code_wrong", services.INVITE_CODE_WRONG),
        problem_example(422, "entry_condition_not_met",
                        services.ENTRY_MAX_RATING.format(need=300, ruleset="goat-classic", have=412)),
        NOT_FOUND,
        problem_example(409, "already_registered", services.ALREADY_REGISTERED),
        problem_example(422, "tournament_full", services.TOURNAMENT_FULL.format(max_players=32)),
        problem_example(422, "registration_closed", services.REGISTRATION_CLOSED),
        problem_example(422, "insufficient_chips", services.INSUFFICIENT_CHIPS.format(fee=50, balance=20)),
    ],
    extensions=raises(PlayerError.COMPUTER_PLAYER, PlayerError.BOT_ACCOUNT, TournamentError.REGISTRATION_CLOSED,
                      TournamentError.ALREADY_REGISTERED, TournamentError.INVITE_CODE_REQUIRED,
                      TournamentError.INVITE_CODE_WRONG, TournamentError.ENTRY_CONDITION_NOT_MET,
                      TournamentError.TOURNAMENT_FULL, RatingError.INSUFFICIENT_CHIPS),
    tags=["tournaments"],
)

tournaments_withdraw = extend_schema(
    operation_id="tournaments_withdraw",
    summary="Withdraw before the start",
    description="Withdraw before the start; the entry fee is refunded. Once the tournament runs, "
                "POST /api/tournaments/{id}/withdraw/ instead.",
    parameters=[TOURNAMENT_ID],
    request=None,
    responses={204: None, **problem_responses(401, 404, 422)},
    examples=[
        UNAUTHENTICATED,
        NOT_FOUND,
        problem_example(404, "not_registered", services.NOT_REGISTERED),
        problem_example(422, "registration_closed", services.REGISTRATION_CLOSED),
    ],
    extensions=raises(TournamentError.NOT_REGISTERED, TournamentError.REGISTRATION_CLOSED),
    tags=["tournaments"],
)

tournaments_start = extend_schema(
    operation_id="tournaments_start",
    summary="Start now (staff)",
    description="Start a scheduled tournament now, as its scheduled start would: standings lines, then "
                "round 1 (swiss) or the first tables (arena). 409 `tournament_not_scheduled` otherwise.",
    parameters=[TOURNAMENT_ID],
    request=None,
    responses={200: TournamentDetailSerializer, **problem_responses(401, 403, 404, 409)},
    examples=[
        OpenApiExample("started", value=DETAIL_EXAMPLE, response_only=True, status_codes=["200"]),
        UNAUTHENTICATED,
        problem_example(403, "permission_denied", IsStaff.message),
        NOT_FOUND,
        problem_example(409, "tournament_not_scheduled", services.NOT_SCHEDULED.format(status="running")),
    ],
    extensions=raises(TournamentError.TOURNAMENT_NOT_SCHEDULED),
    tags=["tournaments"],
)

tournaments_cancel = extend_schema(
    operation_id="tournaments_cancel",
    summary="Cancel (staff)",
    description="Status `cancelled` with the reason: every entry fee refunded; games still waiting or "
                "running cancelled (`game_cancelled` reason `tournament_cancelled`: no rating points, stakes "
                "back); games already ended keep their rating points; no prizes. 409 `tournament_ended` "
                "once finished or cancelled.",
    parameters=[TOURNAMENT_ID],
    request=CancelSerializer,
    responses={200: TournamentDetailSerializer, **problem_responses(401, 403, 404, 409)},
    examples=[
        OpenApiExample("cancel", request_only=True, value={"reason": "The server room is flooded."}),
        OpenApiExample("cancelled", response_only=True, status_codes=["200"], value={
            **DETAIL_EXAMPLE, "status": "cancelled", "prize_pool": 0, "cancelled_at": "2025-06-06T18:20:00Z",
            "cancel_reason": "The server room is flooded.",
            "tables": [{**DETAIL_EXAMPLE["tables"][0], "status": "cancelled"}]}),
        problem_example(400, "invalid", "reason: This field is required.", {"reason": ["This field is required."]}),
        UNAUTHENTICATED,
        problem_example(403, "permission_denied", IsStaff.message),
        NOT_FOUND,
        problem_example(409, "tournament_ended", services.TOURNAMENT_ENDED.format(status="finished")),
    ],
    extensions=raises(TournamentError.TOURNAMENT_ENDED),
    tags=["tournaments"],
)

tournaments_withdraw_running = extend_schema(
    operation_id="tournaments_withdraw_running",
    summary="Withdraw from a running tournament",
    description="The player themself (no body), or staff (`{\"player\"}`), during a running tournament: a seat "
                "in a running game resigns it (docs/rules.md D-12), the player is seated no more, the standings "
                "line stays marked `withdrawn`; the entry fee is not refunded. 409 `tournament_not_running` "
                "before the start (DELETE the registration instead) or after the end, `already_withdrawn` "
                "the second time; 404 `not_registered`; 403 when a player names someone else.",
    parameters=[TOURNAMENT_ID],
    request=WithdrawSerializer,
    responses={200: WithdrawnSerializer, **problem_responses(401, 403, 404, 409)},
    examples=[
        OpenApiExample("staff withdraws bob", request_only=True, value={"player": "bob"}),
        OpenApiExample("withdrawn", value=WITHDRAW_EXAMPLE, response_only=True, status_codes=["200"]),
        UNAUTHENTICATED,
        problem_example(403, "permission_denied", access.WITHDRAW_OTHERS),
        problem_example(404, "not_registered", services.NOT_REGISTERED),
        problem_example(409, "tournament_not_running", services.NOT_RUNNING.format(status="finished")),
        problem_example(409, "already_withdrawn", services.ALREADY_WITHDRAWN.format(player="bob")),
    ],
    extensions=raises(TournamentError.NOT_REGISTERED, TournamentError.TOURNAMENT_NOT_RUNNING,
                      TournamentError.ALREADY_WITHDRAWN),
    tags=["tournaments"],
)

tournaments_standings = extend_schema(
    operation_id="tournaments_standings",
    summary="Standings",
    description="Ranked by points (the rating points of docs/rules.md §9 each game gave, plus byes); ties: fewer "
                "goats, then higher `opponents_points` (over the player's games, the sum of the mean "
                "standings points of the others at the table), then lower total game points, then earlier "
                "registration. Before the start: the registered players in registration order.",
    parameters=[TOURNAMENT_ID],
    responses={200: StandingSerializer(many=True), **problem_responses(401, 404)},
    examples=[
        OpenApiExample("standings", value=STANDING_EXAMPLE, response_only=True, status_codes=["200"]),
        UNAUTHENTICATED,
        NOT_FOUND,
    ],
    tags=["tournaments"],
)

tournaments_crosstable = extend_schema(
    operation_id="tournaments_crosstable",
    summary="Crosstable",
    description="Every player in standings order with the games they played, in play order: round (null in "
                "an arena), table, game, the others at the table, the player's game points, the standings "
                "points the game gave and whether they were a goat (null until the game is recorded). A "
                "bye is no game. Anyone may read it.",
    parameters=[TOURNAMENT_ID],
    responses={200: CrosstableRowSerializer(many=True), **problem_responses(404)},
    examples=[
        OpenApiExample("crosstable", value=CROSSTABLE_EXAMPLE, response_only=True, status_codes=["200"]),
        NOT_FOUND,
    ],
    tags=["tournaments"],
)

tournaments_results_csv = extend_schema(
    operation_id="tournaments_results_csv",
    summary="Results as CSV",
    description="The standings with every tiebreak, one row per player in standings order, UTF-8 with a "
                "header row: " + ", ".join(selectors.RESULTS_COLUMNS) + ". Anyone may read it.",
    parameters=[TOURNAMENT_ID],
    responses={(200, "text/csv"): OpenApiResponse(
        response=OpenApiTypes.STR, description="results.csv",
        examples=[OpenApiExample("results", value=RESULTS_EXAMPLE, media_type="text/csv")]),
        **problem_responses(404)},
    examples=[NOT_FOUND],
    tags=["tournaments"],
)

players_tournaments_list = extend_schema(
    operation_id="players_tournaments_list",
    summary="A player's tournaments",
    description="The tournaments the player entered, latest start first, with their place (null before the "
                "start), points, games and whether they withdrew. Anyone may read it.",
    responses={200: PlayerTournamentSerializer(many=True), **problem_responses(404)},
    examples=[
        OpenApiExample("tournaments", value=PLAYER_TOURNAMENT_EXAMPLE, response_only=True,
                       status_codes=["200"]),
        problem_example(404, "not_found", "No player with this username."),
    ],
    tags=["players"],
)

tournament_schedules_list = extend_schema(
    operation_id="tournament_schedules_list", summary="Tournament schedules (staff)",
    description="Recurring tournaments, newest first.",
    responses={200: ScheduleSerializer(many=True), **problem_responses(401, 403, 404)},
    examples=[OpenApiExample("schedules", value=SCHEDULE_EXAMPLE, response_only=True, status_codes=["200"]),
              UNAUTHENTICATED, problem_example(403, "permission_denied", IsStaff.message)],
    tags=["tournaments"],
)

tournament_schedules_create = extend_schema(
    operation_id="tournament_schedules_create", summary="Schedule a recurring tournament (staff)",
    description="One tournament from `template` starting at `first_start + k * every`, each created "
                "`announce_before` ahead of its start by the beat, once per (schedule, start). The template "
                "is checked now (400 `invalid` with `errors.template`, or `invalid_options`); `every` is an "
                "ISO 8601 duration of at least PT5M, `announce_before` of at most P31D (400 naming the field).",
    request=ScheduleCreateSerializer,
    responses={201: ScheduleSerializer, **problem_responses(400, 401, 403)},
    examples=[
        OpenApiExample("nightly arena", request_only=True, value={
            "template": SCHEDULE_TEMPLATE, "first_start": "2025-06-01T21:00:00Z", "every": "P1D",
            "announce_before": "PT12H"}),
        OpenApiExample("created", value={**SCHEDULE_EXAMPLE, "tournaments": 0}, response_only=True,
                       status_codes=["201"]),
        problem_example(400, "invalid", "every: " + EVERY_TOO_SHORT, {"every": [EVERY_TOO_SHORT]}),
        UNAUTHENTICATED,
        problem_example(403, "permission_denied", IsStaff.message),
    ],
    tags=["tournaments"],
)

tournament_schedules_retrieve = extend_schema(
    operation_id="tournament_schedules_retrieve", summary="A tournament schedule (staff)",
    parameters=[SCHEDULE_ID], responses={200: ScheduleSerializer, **problem_responses(401, 403, 404)},
    examples=[OpenApiExample("schedule", value=SCHEDULE_EXAMPLE, response_only=True, status_codes=["200"]),
              UNAUTHENTICATED, problem_example(403, "permission_denied", IsStaff.message),
              problem_example(404, "not_found", "No tournament schedule with that id.")],
    tags=["tournaments"],
)

tournament_schedules_update = extend_schema(
    operation_id="tournament_schedules_update", summary="Change or stop a tournament schedule (staff)",
    description='`{"active": false}` stops it: nothing more is created, the tournaments it created stay as '
                "they are. `template`, `first_start`, `every` and `announce_before` change the occurrences "
                "not created yet, checked as at creation.",
    parameters=[SCHEDULE_ID], request=ScheduleUpdateSerializer,
    responses={200: ScheduleSerializer, **problem_responses(400, 401, 403, 404)},
    examples=[
        OpenApiExample("stop", request_only=True, value={"active": False}),
        OpenApiExample("stopped", value={**SCHEDULE_EXAMPLE, "active": False}, response_only=True,
                       status_codes=["200"]),
        problem_example(400, "invalid", "every: 'PT1X' is not an ISO 8601 duration (such as PT1H or P7D).",
                        {"every": ["'PT1X' is not an ISO 8601 duration (such as PT1H or P7D)."]}),
        UNAUTHENTICATED, problem_example(403, "permission_denied", IsStaff.message),
        problem_example(404, "not_found", "No tournament schedule with that id."),
    ],
    tags=["tournaments"],
)
