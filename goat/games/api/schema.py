"""The OpenAPI document of the games API (goat.games.api.views): its parameters, links and each view's
operation (``@schema.games_list`` and so on, applied in views.py), with the problem codes it answers with
besides the common ones (``raises``: goat.web.api.schema). Example bodies are in
goat.games.api.examples; the live streams' operations in goat.games.api.stream_schema."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema

from goat.engine import errors
from goat.games import analysis, services
from goat.games.api.examples import (
    CANCELLED_EXAMPLE,
    COMPUTER_EXAMPLE,
    EVENTS_EXAMPLE,
    GAME_EXAMPLE,
    LEFT_EXAMPLE,
    MOVE_EXAMPLE,
    REPLAY_EXAMPLE,
    RESULT_EXAMPLE,
    SCORESHEET_3ROUNDS_EXAMPLE,
    SCORESHEET_EXAMPLE,
    SCORESHEET_GAMESBURG_EXAMPLE,
    SUMMARY_EXAMPLE,
    WAITING_EXAMPLE,
)
from goat.games.api.serializers import (
    AnalysisSerializer,
    EventsQuerySerializer,
    EventsSerializer,
    GameCreateSerializer,
    GameJoinSerializer,
    GameSummarySerializer,
    GameViewSerializer,
    MoveResponseSerializer,
    MoveSerializer,
    ReplayQuerySerializer,
    ReplaySerializer,
    ScoresheetSerializer,
    SigningKeySerializer,
    VerificationSerializer,
)
from goat.games.errors import PLAY_REFUSALS, GameError, RulesRefusal
from goat.games.signals import RETURN_REFUSALS, SEAT_REFUSALS
from goat.players.errors import PlayerError
from goat.web.api.problems import problem_example, problem_responses
from goat.web.api.schema import (
    ID_SCHEMA,
    IDEMPOTENCY_KEY,
    IN_PROGRESS,
    KEY_REUSED,
    THROTTLED,
    UNAUTHENTICATED,
    link,
    raises,
)

COMPUTERS_OUT_OF_RANGE = "Ensure this value is from 0 to 1 (the seats but yours)."
INVALID_IF_MATCH = gettext_lazy('If-Match must be the game\'s ETag, a quoted version number such as "12" (or *).')

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

NOT_FOUND = problem_example(404, "not_found", services.GAME_NOT_FOUND)
NOT_SEATED = problem_example(403, "not_seated", errors.NOT_SEATED)
NOT_ENDED = problem_example(409, "game_not_ended", services.GAME_NOT_ENDED)


# --- OpenAPI links: from a game in an answer to the requests it makes possible ---------------


def game_links(pointer: str) -> dict[str, dict]:
    """Links from an answer holding a game view at the JSON pointer ``pointer`` (``""`` or ``/game``)."""
    game_id = {"game_id": f"$response.body#{pointer}/id"}
    return {
        "join": link("games_join", "Take the next free seat at this game.", game_id),
        "move": link("games_move", "Play a tile at the version this answer shows.",
                     {**game_id, "header.If-Match": "$response.header.ETag"}),
        "view": link("games_retrieve", "This game as you see it.", game_id),
        "events": link("games_events", "This game's events after the version this answer shows.",
                       {**game_id, "after": f"$response.body#{pointer}/version"}),
        "leave": link("games_leave", "Give up your seat while the game waits.", game_id),
        "resign": link("games_resign", "Resign.", game_id),
        "stream": link("games_stream", "Follow this game from this version on.",
                       {**game_id, "after": f"$response.body#{pointer}/version"}),
    }


# --- the operations of the views (goat.games.api.views), in the order of the views -----------

games_list = extend_schema(
    operation_id="games_list",
    summary="List games",
    description="Game summaries, newest first, filtered by `status`, `player` (username), `ruleset` "
                "and `tournament`.",
    responses={200: GameSummarySerializer(many=True), **problem_responses(400, 401, 404)},
    examples=[
        OpenApiExample("games", value=SUMMARY_EXAMPLE, response_only=True, status_codes=["200"]),
        problem_example(400, "invalid",
                        "status: Select a valid choice. paused is not one of the available choices.",
                        {"status": ["Select a valid choice. paused is not one of the available choices."]}),
        UNAUTHENTICATED,
        problem_example(404, "not_found", "Invalid page."),
    ],
    tags=["games"],
)

games_create = extend_schema(
    operation_id="games_create",
    summary="Create a game",
    description="You take seat 0. The game starts (the first round is dealt) when the last seat is taken. "
                "A new game gets its ruleset's preset (docs/rules.md §2, second edition: the goat presets lead "
                "with `\"opener\": \"doubles_from_one_by_sum\"`; `remembered_counts` is true for goat-classic, "
                "false for goat-gamesburg and goat-pairs, null for domino-3rounds) with your `options` applied; "
                "goat-pairs takes exactly 4 seats (partners opposite: seats 0 and 2, 1 and 3; `seats[i].team`) "
                "and refuses overrides of `hand_size`, `bazaar_reserve`, `scoring` and `rounds` (docs/rules.md "
                "§12); the fully "
                "resolved options are stored in the game's first event. "
                "An unknown option or an impossible combination is 400 `invalid_options`. "
                "`computer_players` (0 to seats - 1) seats built-in computer players at seats 1..N at once, "
                "playing at `computer_level` (`random`, `strong`, the default, or `expert`); the game starts when the "
                "people's seats fill. A game with a computer is unrated (`\"rated\": false`): no rating "
                "points, skill, chips, tournament or leaderboard, and no ante (the preset's ante is left out; "
                "`ante` > 0 is 400 `invalid_options`). A player holds a seat in at most "
                "`GOAT_COMPUTER_GAMES_PER_PLAYER` (default 5) open games with a computer: one more is 409 "
                "`too_many_computer_games`. An unclocked game with a computer in which nothing happens for "
                "`GOAT_COMPUTER_GAME_IDLE_HOURS` (default 24) ends: the player to move times out. docs/computer.md.",
    parameters=[IDEMPOTENCY_KEY, ETAG_CREATED],
    request=GameCreateSerializer,
    responses={201: GameViewSerializer, **problem_responses(400, 401, 403, 409, 422, 429)},
    examples=[
        OpenApiExample("two players, classic", request_only=True,
                       value={"ruleset": "goat-classic", "seats": 2, "options": {"limit": 51},
                              "client_seed": "x7"}),
        OpenApiExample("created", value=WAITING_EXAMPLE, response_only=True, status_codes=["201"]),
        OpenApiExample("goat-gamesburg, remembered points counting", request_only=True,
                       value={"ruleset": "goat-gamesburg", "seats": 3, "options": {"remembered_counts": True}}),
        OpenApiExample("goat-pairs: you and a computer partner against two computers", request_only=True,
                       value={"ruleset": "goat-pairs", "seats": 4, "computer_players": 3,
                              "computer_level": "expert"}),
        OpenApiExample("against two strong computers", request_only=True,
                       value={"ruleset": "goat-classic", "seats": 3, "computer_players": 2,
                              "computer_level": "strong"}),
        OpenApiExample("with computers", value=COMPUTER_EXAMPLE, response_only=True, status_codes=["201"]),
        problem_example(400, "invalid_options", "option 'limit' must be a whole number from 1 to 10000."),
        problem_example(400, "invalid_options", "goat-pairs is played by two pairs: seats must be 4."),
        problem_example(400, "invalid", f"computer_players: {COMPUTERS_OUT_OF_RANGE}",
                        {"computer_players": [COMPUTERS_OUT_OF_RANGE]}),
        problem_example(400, "invalid_options", services.COMPUTER_ANTE),
        problem_example(403, "computer_player", services.COMPUTER_PLAYER),
        problem_example(409, "too_many_computer_games", services.TOO_MANY_COMPUTER_GAMES.format(limit=5)),
        UNAUTHENTICATED,
        IN_PROGRESS,
        KEY_REUSED,
        THROTTLED,
    ],
    extensions=raises(GameError.INVALID_CLIENT_SEED, RulesRefusal.INVALID_OPTIONS, PlayerError.COMPUTER_PLAYER,
                      PlayerError.BOT_ACCOUNT, GameError.TOO_MANY_COMPUTER_GAMES, SEAT_REFUSALS),
    tags=["games"],
)

games_rematch = extend_schema(
    operation_id="games_rematch",
    summary="Offer a rematch",
    description="After a game ends, a seated player offers a new game with the same ruleset, options and "
                "seats: 201 with the new game's view (you take seat 0; the other players are told on their "
                "feed, `rematch_offered`, and join as usual). A repeat by any player of the old game "
                "answers 200 with the same new game.",
    parameters=[GAME_ID, ETAG_ANSWERED],
    request=None,
    responses={201: GameViewSerializer, 200: GameViewSerializer,
               **problem_responses(401, 403, 404, 409, 422, 429)},
    examples=[
        OpenApiExample("offered", value=WAITING_EXAMPLE, response_only=True, status_codes=["201", "200"]),
        UNAUTHENTICATED,
        NOT_SEATED,
        NOT_FOUND,
        NOT_ENDED,
        THROTTLED,
    ],
    extensions=raises(GameError.NOT_SEATED, PlayerError.BOT_ACCOUNT, GameError.GAME_NOT_ENDED,
                      GameError.TOO_MANY_COMPUTER_GAMES, SEAT_REFUSALS),
    tags=["games"],
)

players_me_games = extend_schema(
    operation_id="players_me_games",
    summary="My games",
    description="The games you hold a seat at, newest first, optionally filtered by `status`.",
    responses={200: GameSummarySerializer(many=True), **problem_responses(400, 401, 404, 429)},
    examples=[
        OpenApiExample("games", value=SUMMARY_EXAMPLE, response_only=True, status_codes=["200"]),
        UNAUTHENTICATED,
        THROTTLED,
    ],
    tags=["players"],
)

games_join = extend_schema(
    operation_id="games_join",
    summary="Join a game",
    description="Take the next free seat; the game starts when the last seat is taken.",
    parameters=[GAME_ID, IDEMPOTENCY_KEY, ETAG],
    request=GameJoinSerializer,
    responses={200: GameViewSerializer, **problem_responses(400, 401, 404, 409, 422, 429)},
    examples=[
        OpenApiExample("client seed", value={"client_seed": "x7"}, request_only=True),
        OpenApiExample("joined", value=GAME_EXAMPLE | {"your_seat": 1}, response_only=True, status_codes=["200"]),
        UNAUTHENTICATED,
        NOT_FOUND,
        problem_example(409, "game_not_waiting", errors.NOT_WAITING),
        problem_example(409, "already_seated", errors.ALREADY_SEATED),
        problem_example(409, "game_full", services.GAME_FULL),
        KEY_REUSED,
    ],
    extensions=raises(GameError.INVALID_CLIENT_SEED, PlayerError.COMPUTER_PLAYER, PlayerError.BOT_ACCOUNT,
                      GameError.TOO_MANY_COMPUTER_GAMES, GameError.ALREADY_SEATED, GameError.GAME_FULL,
                      RulesRefusal.GAME_NOT_WAITING, RulesRefusal.SEAT_TAKEN, RulesRefusal.INVALID_SEAT,
                      SEAT_REFUSALS, RETURN_REFUSALS),
    tags=["games"],
)

games_retrieve = extend_schema(
    operation_id="games_retrieve",
    summary="Game view",
    description="The game as you see it: your own hand and legal moves, the others' tile counts. "
                "Spectators see no hands while the game runs.",
    parameters=[GAME_ID, IF_NONE_MATCH, ETAG],
    responses={200: GameViewSerializer, 304: NOT_MODIFIED, **problem_responses(401, 404)},
    examples=[
        OpenApiExample("running", value=GAME_EXAMPLE, response_only=True, status_codes=["200"]),
        UNAUTHENTICATED,
        NOT_FOUND,
    ],
    tags=["games"],
)

games_move = extend_schema(
    operation_id="games_move",
    summary="Play a tile",
    description="Play a tile from your hand. `end` is only needed when the tile fits both ends. "
                "The answer carries the play and every forced action after it (draws, knocks, the "
                "next deal), redacted for you, and your new game view.",
    parameters=[GAME_ID, IF_MATCH, IDEMPOTENCY_KEY, ETAG_CREATED],
    request=MoveSerializer,
    responses={201: MoveResponseSerializer, **problem_responses(400, 401, 403, 404, 409, 412, 422, 429)},
    examples=[
        OpenApiExample("play on the right", value={"tile": "3-5", "end": "right"}, request_only=True),
        OpenApiExample("played", value=MOVE_EXAMPLE, response_only=True, status_codes=["201"]),
        problem_example(400, "invalid_if_match", INVALID_IF_MATCH),
        UNAUTHENTICATED,
        NOT_SEATED,
        problem_example(403, "computer_seat", services.COMPUTER_SEAT),
        NOT_FOUND,
        IN_PROGRESS,
        problem_example(412, "version_mismatch", "The game is at version 7, not 6; reload it and try again."),
        problem_example(422, "not_your_turn", "It is seat 1's turn, not seat 0's."),
        problem_example(422, "game_not_running", errors.NOT_RUNNING),
        problem_example(422, "tile_not_in_hand", "You do not hold 3-5."),
        problem_example(422, "tile_does_not_fit", "3-5 does not fit the right end (2)."),
        problem_example(422, "end_required", "3-5 fits both ends (3 and 5); say which end."),
        problem_example(422, "must_lead_with", "This round must be opened with 1-1."),
        problem_example(422, "invalid_tile",
                        "'3-9' is not a domino tile; write it as \"a-b\" with 0..6 on each half."),
        KEY_REUSED,
        THROTTLED,
    ],
    extensions=raises(GameError.INVALID_IF_MATCH, GameError.NOT_SEATED, GameError.COMPUTER_SEAT,
                      GameError.VERSION_MISMATCH, *PLAY_REFUSALS),
    tags=["games"],
)

games_resign = extend_schema(
    operation_id="games_resign",
    summary="Resign",
    description="Resigning counts as a timeout of your seat (docs/rules.md D-12): the game ends.",
    parameters=[GAME_ID],
    request=None,
    responses={200: GameViewSerializer, **problem_responses(401, 403, 404, 422)},
    examples=[
        OpenApiExample("resigned", response_only=True, status_codes=["200"],
                       value=GAME_EXAMPLE | {"status": "interrupted", "turn": None, "deadline": None,
                                             "legal_moves": [], "server_seed": "5f" * 32,
                                             "result": RESULT_EXAMPLE | {"reason": "resigned"}}),
        UNAUTHENTICATED,
        NOT_SEATED,
        NOT_FOUND,
        problem_example(422, "game_not_running", errors.NOT_RUNNING),
    ],
    extensions=raises(GameError.NOT_SEATED, RulesRefusal.GAME_NOT_RUNNING),
    tags=["games"],
)

games_leave = extend_schema(
    operation_id="games_leave",
    summary="Leave a waiting game",
    description="Give up your seat at a game that has not started; your stake is returned. Later seats do "
                "not move and the next joiner may take the freed seat. When no seat is left taken the game "
                "is cancelled (status `cancelled`, no result).",
    parameters=[GAME_ID],
    request=None,
    responses={200: GameViewSerializer, **problem_responses(401, 403, 404, 409)},
    examples=[
        OpenApiExample("left", response_only=True, status_codes=["200"], value=LEFT_EXAMPLE),
        OpenApiExample("cancelled", response_only=True, status_codes=["200"], value=CANCELLED_EXAMPLE),
        UNAUTHENTICATED,
        NOT_SEATED,
        NOT_FOUND,
        problem_example(409, "game_not_waiting", errors.STARTED),
    ],
    extensions=raises(GameError.NOT_SEATED, RulesRefusal.GAME_NOT_WAITING),
    tags=["games"],
)

games_events = extend_schema(
    operation_id="games_events",
    summary="Event log",
    description="Events with `seq` greater than `after`, redacted for you while the game runs "
                "(another seat's hand and drawn tiles, the bazaar). Nothing is redacted once the game "
                "has ended, nor for auditors (the `goat.audit_game` permission) without a seat at the game.",
    parameters=[GAME_ID, EventsQuerySerializer, IF_NONE_MATCH, ETAG],
    responses={200: EventsSerializer, 304: NOT_MODIFIED, **problem_responses(400, 401, 404)},
    examples=[
        OpenApiExample("events", value=EVENTS_EXAMPLE, response_only=True, status_codes=["200"]),
        problem_example(400, "invalid", "after: Ensure this value is greater than or equal to 0.",
                        {"after": ["Ensure this value is greater than or equal to 0."]}),
        UNAUTHENTICATED,
        NOT_FOUND,
    ],
    tags=["games"],
)

games_scoresheet = extend_schema(
    operation_id="games_scoresheet",
    summary="Scoresheet",
    description="Per round: how it ended, hand values, round points and each player's account (its "
                "`points` follow the game's `remembered_counts`; `remembered` is shown either way); in "
                "domino-3rounds the round's `winners`; the fish pot carried; the totals.",
    parameters=[GAME_ID, ETAG],
    responses={200: ScoresheetSerializer, **problem_responses(401, 404)},
    examples=[
        OpenApiExample(
            "after one round", response_only=True, status_codes=["200"],
            value=SCORESHEET_EXAMPLE,
        ),
        OpenApiExample(
            "goat-gamesburg: remembered points are not points", response_only=True, status_codes=["200"],
            description="With remembered_counts false (D-8) a player's points are the written score alone; "
                        "the remembered points are still shown.",
            value=SCORESHEET_GAMESBURG_EXAMPLE,
        ),
        OpenApiExample(
            "domino-3rounds: each round names its winners", response_only=True, status_codes=["200"],
            description="The fewest pips left win the round; ties share (docs/rules.md §8).",
            value=SCORESHEET_3ROUNDS_EXAMPLE,
        ),
        UNAUTHENTICATED,
        NOT_FOUND,
    ],
    tags=["games"],
)

games_replay = extend_schema(
    operation_id="games_replay",
    summary="Full state after an event",
    description="Everything (hands, bazaar order, seed) after event `at` (default: the last). Only once "
                "the game has ended (409 `game_not_ended` before), or for auditors without a seat at it.",
    parameters=[GAME_ID, ReplayQuerySerializer],
    responses={200: ReplaySerializer, **problem_responses(400, 401, 404, 409)},
    examples=[
        OpenApiExample(
            "after the deal", response_only=True, status_codes=["200"],
            value=REPLAY_EXAMPLE,
        ),
        problem_example(400, "invalid", "at: The game has only 211 events.",
                        {"at": ["The game has only 211 events."]}),
        UNAUTHENTICATED,
        NOT_FOUND,
        NOT_ENDED,
    ],
    extensions=raises(GameError.GAME_NOT_ENDED),
    tags=["games"],
)

games_verify = extend_schema(
    operation_id="games_verify",
    summary="Verify a game",
    description="Recompute the hash chain, prove every deal from the seeds and replay the events against "
                "the stored result. Once the game has ended (409 `game_not_ended` before), or for auditors without "
                "a seat at it.",
    parameters=[GAME_ID],
    responses={200: VerificationSerializer, **problem_responses(401, 404, 409)},
    examples=[
        OpenApiExample("verified", response_only=True, status_codes=["200"],
                       value={"hash_chain": True, "deals": True, "replay": True, "detail": "all checks passed",
                              "seq": None}),
        UNAUTHENTICATED,
        NOT_FOUND,
        NOT_ENDED,
    ],
    extensions=raises(GameError.GAME_NOT_ENDED),
    tags=["games"],
)

#: the start of docs/records.md's example record
RECORD_EXAMPLE = (
    '[Format "goat-record/1"]\n[Game 49]\n[Ruleset "domino-3rounds"]\n[Seats 2]\n[Options {"ante":0,…}]\n'
    '[Rated true]\n[Player0 "bot0"]\n[Player1 "bot1"]\n[Engine "goat 0.1.0"]\n…\n\n'
    '2 2026-01-01T00:00:02Z join 0 "bot0" ""\n…\n5 2026-01-01T00:00:05Z play 1 0-0 left\n…\n\n'
    '-----BEGIN GOAT SIGNATURE-----\nKey: ed25519-c2e6888c8a79c328\nAlgorithm: ed25519\n'
    'Signed: 2026-01-01T00:10:00Z\nSignature: RKiNvPrq…\n-----END GOAT SIGNATURE-----\n'
)

games_record = extend_schema(
    operation_id="games_record",
    summary="A game's signed record",
    description="The game as a portable record signed by the server's current key (docs/records.md): its "
                "headers (ruleset, options, players, the deal's commitment and reveal, the result), every event, "
                "the scoresheet and the signature. `python -m goat.engine verify RECORD --keys KEYS` checks it "
                "offline against `GET /api/keys/`. Ended games only (409 `game_not_ended` before, for everyone: "
                "the seed is still secret). Problems are JSON.",
    parameters=[GAME_ID],
    responses={(200, "text/plain"): OpenApiResponse(
        response=OpenApiTypes.STR, description="the record, UTF-8",
        examples=[OpenApiExample("record", value=RECORD_EXAMPLE, media_type="text/plain")]),
        **problem_responses(401, 404, 409)},
    examples=[UNAUTHENTICATED, NOT_FOUND, NOT_ENDED],
    extensions=raises(GameError.GAME_NOT_ENDED, GameError.GAME_NOT_RECORDABLE),
    tags=["games"],
)

keys_list = extend_schema(
    operation_id="keys_list",
    summary="The keys that sign game records",
    description="Every Ed25519 public key that signs or has signed game records, oldest first, with the time "
                "it signs from and the time it was retired (null for the current key). Retired keys stay "
                "listed, so records they signed still verify. Anyone may read it.",
    responses={200: SigningKeySerializer(many=True), **problem_responses(401)},
    examples=[UNAUTHENTICATED, OpenApiExample("keys", response_only=True, status_codes=["200"], value=[
        {"id": "ed25519-c2e6888c8a79c328", "public_key": "qNdxbVxWp1XDLLotIPsQEjCl7GGTpkWpQFm6rpSG8GY=",
         "algorithm": "ed25519", "valid_from": "2026-01-01T00:00:00Z", "valid_until": None}])],
    tags=["games"],
)


ANALYSIS_EXAMPLE = {
    "status": "done", "engine": "expert-4", "samples": 1000,
    "moves": [{"version": 9, "seat": 1, "player": "ivan", "played": {"tile": "5-6", "end": "left"},
               "legal": [{"tile": "5-6", "end": "left"}, {"tile": "2-5", "end": "left"}],
               "best": {"tile": "2-5", "end": "left"}, "loss": 12.3, "loss_interval": [10.4, 14.2],
               "label": "mistake", "forced": False}],
    "players": [{"seat": 0, "player": "masha", "decisions": 14, "average_loss": 1.2, "inaccuracies": 2,
                 "mistakes": 0, "blunders": 0, "accuracy": 95.4},
                {"seat": 1, "player": "ivan", "decisions": 12, "average_loss": 3.4, "inaccuracies": 1,
                 "mistakes": 2, "blunders": 1, "accuracy": 87.9}],
}
ANALYSIS_DONE = OpenApiExample("done", response_only=True, status_codes=["200"], value=ANALYSIS_EXAMPLE)
ANALYSIS_QUEUED = OpenApiExample("queued", response_only=True, status_codes=["202"], value={"status": "queued"})
ANALYSIS_NOT_REQUESTED = problem_example(404, "analysis_not_requested", analysis.ANALYSIS_NOT_REQUESTED)
GAME_CANCELLED = problem_example(409, "game_cancelled", analysis.GAME_CANCELLED)

games_analysis_read = extend_schema(
    operation_id="games_analysis_read",
    summary="A finished game's analysis",
    description="The expert's judgement of every tile played (its best move, the expected loss of the move "
                "played in points of the round with its 95% interval, judged from what that seat knew then, never "
                "from the revealed hands; a label when the interval's low end reaches a threshold of "
                "docs/computer.md) and a summary per player with an accuracy. Anyone may read "
                "it once the game has ended: 200 when done, 202 `{\"status\": \"queued\"|\"running\"}` while "
                "it is computed, 200 `{\"status\": \"failed\", \"engine\", \"code\"}` when the engine could not judge "
                "the game (final), 404 `analysis_not_requested` before anyone asked (POST), 409 `game_not_ended` "
                "before the end, 409 `game_cancelled` for a game that never started.",
    parameters=[GAME_ID],
    responses={200: AnalysisSerializer, 202: AnalysisSerializer, **problem_responses(404, 409)},
    examples=[ANALYSIS_DONE, ANALYSIS_QUEUED, NOT_FOUND, ANALYSIS_NOT_REQUESTED, NOT_ENDED, GAME_CANCELLED],
    extensions=raises(GameError.ANALYSIS_NOT_REQUESTED, GameError.GAME_NOT_ENDED, GameError.GAME_CANCELLED),
    tags=["games"],
)

games_analysis_request = extend_schema(
    operation_id="games_analysis_request",
    summary="Ask for a finished game's analysis",
    description="Queues the expert's analysis of an ended game: 202 `{\"status\": \"queued\"}` (or "
                "`running`: a request while one is queued or running gets the same job), 200 with the analysis "
                "when it exists, or with `failed` when the engine could not judge the game (idempotent). "
                "Stored once per game and engine version. Any signed-in player; "
                "throttled (429). 409 `game_not_ended` while the game waits or runs, 409 `game_cancelled`.",
    parameters=[GAME_ID],
    request=None,
    responses={200: AnalysisSerializer, 202: AnalysisSerializer, **problem_responses(401, 404, 409, 429)},
    examples=[ANALYSIS_DONE, ANALYSIS_QUEUED, UNAUTHENTICATED, NOT_FOUND, NOT_ENDED, GAME_CANCELLED, THROTTLED],
    extensions=raises(GameError.GAME_NOT_ENDED, GameError.GAME_CANCELLED),
    tags=["games"],
)
