"""Games API (API.md "Games" and "Events"): create, join, list, view, move, resign, events,
scoresheet, replay and verify.

Views are thin: validate the input, call one service or selector, shape the output. What a caller
may see is decided by ``goat.selectors``; every refusal is a ServiceError or an engine RulesError,
rendered as problem details by ``goat.problems``.

Conditional requests: game resources carry ``ETag: "<version>"`` and answer ``If-None-Match`` with
304; a move takes ``If-Match: "<version>"`` (412 ``version_mismatch`` when stale, 400
``invalid_if_match`` when it is not a quoted version number or ``*``).

Replay and verify of a game that has not ended yet are 409 ``game_not_ended`` (auditors who hold no
seat at it excepted):
the refusal is about the game's state, not the caller's rights, and it goes away when the game ends.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import generics, status
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.games import audit, selectors, services, verification
from goat.games.api.schema import (
    CANCELLED_EXAMPLE,
    COMPUTER_EXAMPLE,
    ETAG,
    ETAG_ANSWERED,
    ETAG_CREATED,
    EVENTS_EXAMPLE,
    GAME_EXAMPLE,
    GAME_ID,
    IF_MATCH,
    IF_NONE_MATCH,
    LEFT_EXAMPLE,
    MOVE_EXAMPLE,
    NOT_ENDED,
    NOT_FOUND,
    NOT_MODIFIED,
    NOT_SEATED,
    RESULT_EXAMPLE,
    SUMMARY_EXAMPLE,
    WAITING_EXAMPLE,
)
from goat.games.api.serializers import (
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
    VerificationSerializer,
)
from goat.games.filters import GameFilter, MyGamesFilter
from goat.games.models import Game
from goat.web.errors import ServiceError
from goat.web.idempotency import idempotent
from goat.web.problems import problem_example, problem_responses
from goat.web.schema import IDEMPOTENCY_KEY, IN_PROGRESS, KEY_REUSED, THROTTLED, UNAUTHENTICATED, link

COMPUTERS_OUT_OF_RANGE = "Ensure this value is from 0 to 1 (the seats but yours)."
INVALID_IF_MATCH = gettext_lazy('If-Match must be the game\'s ETag, a quoted version number such as "12" (or *).')
VARY = ("Authorization", "Cookie")

# --- Conditional requests -------------------------------------------------------------------

_IF_MATCH = re.compile(r'^\s*"(\d{1,10})"\s*$')


def etag(version: int) -> str:
    return f'"{version}"'


def if_match_version(request: Request) -> int | None:
    """The version an ``If-Match`` header asks for (``None`` without one, or for ``*``)."""
    value = request.headers.get("If-Match")
    if value is None or value.strip() == "*":
        return None
    match = _IF_MATCH.match(value)
    if match is None:
        raise ServiceError("invalid_if_match", INVALID_IF_MATCH, status=400)
    return int(match.group(1))


def not_modified(request: Request, tag: str) -> bool:
    """Whether ``If-None-Match`` names ``tag`` (weak comparison, as RFC 9110 says for GET)."""
    value = request.headers.get("If-None-Match")
    if not value:
        return False
    candidates = [item.strip() for item in value.split(",")]
    return any(c == "*" or c.removeprefix("W/") == tag for c in candidates)


def with_etag(response: Response) -> Response:
    """``response`` (a game view) with the view's version as its ETag, for the next If-Match."""
    response["ETag"] = etag(response.data["version"])
    return response


def conditional(request: Request, tag: str, build) -> Response:
    """304 when the client's copy is current, else the body ``build()`` makes; ETag either way."""
    response = Response(status=status.HTTP_304_NOT_MODIFIED) if not_modified(request, tag) else Response(build())
    response["ETag"] = tag
    return response


# --- Helpers --------------------------------------------------------------------------------


def game_get(game_id: int) -> Game:
    return selectors.game_get(game_id=game_id)


def view_for(game: Game, user) -> dict[str, Any]:
    """The game view of ``game`` for ``user`` (their seat's view, or a spectator's)."""
    return selectors.game_view_for(game=game, user=user)


def ended_or_auditor(game: Game, user) -> None:
    """Replay and verify show hidden information: refused until the game ends, except to those who
    see it unredacted (selectors.sees_everything: an auditor without a seat at the game)."""
    if not selectors.sees_everything(game, user):
        raise ServiceError("game_not_ended", services.GAME_NOT_ENDED, status=409)


class GameAPIView(APIView):
    """Game responses depend on who asks: caches must key them on the credentials."""

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        patch_vary_headers(response, VARY)
        return response


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


# --- Views ----------------------------------------------------------------------------------


class GameListCreateView(generics.ListAPIView, GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    serializer_class = GameSummarySerializer
    schema_links = {"post": {201: game_links("")},
                    "get": {200: {"view": link("games_retrieve", "The first game of the page.",
                                               {"game_id": "$response.body#/results/0/id"}),
                                  "join": link("games_join", "Take a seat at the first game of the page.",
                                               {"game_id": "$response.body#/results/0/id"})}}}
    filterset_class = GameFilter
    queryset = selectors.games_listed()

    @extend_schema(
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
    def get(self, request: Request, *args, **kwargs) -> Response:
        return self.list(request, *args, **kwargs)

    @extend_schema(
        operation_id="games_create",
        summary="Create a game",
        description="You take seat 0. The game starts (the first round is dealt) when the last seat is taken. "
                    "A new game gets its ruleset's preset (RULES.md §2, second edition: the goat presets lead "
                    "with `\"opener\": \"doubles_from_one_by_sum\"`; `remembered_counts` is true for goat-classic, "
                    "false for goat-gamesburg, null for domino-3rounds) with your `options` applied; the fully "
                    "resolved options are stored in the game's first event. "
                    "An unknown option or an impossible combination is 400 `invalid_options`. "
                    "`computer_players` (0 to seats - 1) seats built-in computer players at seats 1..N at once, "
                    "playing at `computer_level` (`random` or `strong`, the default); the game starts when the "
                    "people's seats fill. A game with a computer is unrated (`\"rated\": false`): no rating "
                    "points, skill, chips, tournament or leaderboard, and no ante (the preset's ante is left out; "
                    "`ante` > 0 is 400 `invalid_options`). docs/computer.md.",
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
            OpenApiExample("against two strong computers", request_only=True,
                           value={"ruleset": "goat-classic", "seats": 3, "computer_players": 2,
                                  "computer_level": "strong"}),
            OpenApiExample("with computers", value=COMPUTER_EXAMPLE, response_only=True, status_codes=["201"]),
            problem_example(400, "invalid_options", "option 'limit' must be a whole number from 1 to 10000."),
            problem_example(400, "invalid", f"computer_players: {COMPUTERS_OUT_OF_RANGE}",
                            {"computer_players": [COMPUTERS_OUT_OF_RANGE]}),
            problem_example(400, "invalid_options", services.COMPUTER_ANTE),
            problem_example(403, "computer_player", services.COMPUTER_PLAYER),
            UNAUTHENTICATED,
            IN_PROGRESS,
            KEY_REUSED,
            THROTTLED,
        ],
        tags=["games"],
    )
    def post(self, request: Request) -> Response:
        def create() -> Response:
            serializer = GameCreateSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            game = services.game_create(player=request.user, **serializer.validated_data)
            return with_etag(Response(view_for(game, request.user), status=status.HTTP_201_CREATED))

        return idempotent(self, request, create)


class GameRematchView(GameAPIView):
    schema_links = {"post": {201: game_links(""), 200: game_links("")}}

    @extend_schema(
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
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game, created = services.game_rematch(game_id=game_id, player=request.user)
        return with_etag(Response(view_for(game, request.user),
                                  status=status.HTTP_201_CREATED if created else status.HTTP_200_OK))


class MyGamesView(generics.ListAPIView, GameAPIView):
    serializer_class = GameSummarySerializer
    filterset_class = MyGamesFilter
    queryset = Game.objects.none()  # the schema's model; each request gets the caller's games

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        return selectors.player_games(player=self.request.user)

    @extend_schema(
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
    def get(self, request: Request, *args, **kwargs) -> Response:
        return self.list(request, *args, **kwargs)


class GameJoinView(GameAPIView):
    schema_links = {"post": {200: game_links("")}}

    @extend_schema(
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
            problem_example(409, "game_not_waiting", "This game is not waiting for players."),
            problem_example(409, "already_seated", "You already have a seat at this game."),
            problem_example(409, "game_full", "Every seat of this game is taken."),
            KEY_REUSED,
        ],
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        def join() -> Response:
            serializer = GameJoinSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            game = services.game_join(game_id=game_id, player=request.user, **serializer.validated_data)
            return with_etag(Response(view_for(game, request.user)))

        return idempotent(self, request, join)


class GameDetailView(GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @extend_schema(
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
    def get(self, request: Request, game_id: int) -> Response:
        game = game_get(game_id)
        if not_modified(request, etag(game.version)):
            return conditional(request, etag(game.version), dict)
        view = view_for(game, request.user)
        response = Response(view)
        response["ETag"] = etag(view["version"])
        return response


class GameMoveView(GameAPIView):
    throttle_scope = "moves"
    schema_links = {"post": {201: game_links("/game")}}

    @extend_schema(
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
            problem_example(422, "game_not_running", "The game is not running."),
            problem_example(422, "tile_not_in_hand", "You do not hold 3-5."),
            problem_example(422, "tile_does_not_fit", "3-5 does not fit the right end (2)."),
            problem_example(422, "end_required", "3-5 fits both ends (3 and 5); say which end."),
            problem_example(422, "must_lead_with", "This round must be opened with 1-1."),
            problem_example(422, "invalid_tile",
                            "'3-9' is not a domino tile; write it as \"a-b\" with 0..6 on each half."),
            KEY_REUSED,
            THROTTLED,
        ],
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        def play() -> Response:
            expected_version = if_match_version(request)
            serializer = MoveSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            loaded, events = services.game_play_tile(game_id=game_id, player=request.user,
                                                     expected_version=expected_version, **serializer.validated_data)
            game = loaded.game
            stored = selectors.redact_events(events, game=game, user=request.user, seat=loaded.seat)
            view = selectors.game_view(game=game, state=loaded.state, seat=loaded.seat)
            body = {"version": game.version, "events": stored, "game": view}
            response = Response(body, status=status.HTTP_201_CREATED)
            response["ETag"] = etag(game.version)
            return response

        return idempotent(self, request, play)


class GameResignView(GameAPIView):
    @extend_schema(
        operation_id="games_resign",
        summary="Resign",
        description="Resigning counts as a timeout of your seat (RULES.md D-12): the game ends.",
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
            problem_example(422, "game_not_running", "The game is not running."),
        ],
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        loaded, _events = services.game_resign(game_id=game_id, player=request.user)
        return Response(selectors.game_view(game=loaded.game, state=loaded.state, seat=loaded.seat))


class GameLeaveView(GameAPIView):
    @extend_schema(
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
            problem_example(409, "game_not_waiting", services.GAME_STARTED),
        ],
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        loaded, _events = services.game_leave(game_id=game_id, player=request.user)
        return Response(selectors.game_view(game=loaded.game, state=loaded.state, seat=None))


class GameEventsView(GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @extend_schema(
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
    def get(self, request: Request, game_id: int) -> Response:
        query = EventsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        game = game_get(game_id)
        version = game.version

        def build() -> dict[str, Any]:
            seat = selectors.viewer_seat(game, request.user)
            if selectors.sees_everything(game, request.user, seat):  # an auditor: who looked is recorded
                audit.audit_record_hidden_view(user=request.user, game=game, what="api_events")
            events = selectors.events_for(game=game, user=request.user, after=query.validated_data["after"], seat=seat)
            # As of the game row read above: a move appended since then belongs to the next version.
            return {"version": version, "events": [e for e in events if e["seq"] <= version]}

        return conditional(request, etag(version), build)


class GameScoresheetView(GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @extend_schema(
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
                value={
                    "rounds": [{"round": 1, "end": "out", "seat": 0, "hands": [0, 23], "round_points": [0, 23],
                                "fish_pot": 0, "draw": False, "hand_tiles": [[], ["5-6", "6-6"]],
                                "players": [{"open": False, "score": 0, "remembered": 0, "points": 0},
                                            {"open": True, "score": 23, "remembered": 0, "points": 23}]}],
                    "fish_pot": 0,
                    "totals": [{"seat": 0, "player": "alice", "open": False, "score": 0, "remembered": 0, "points": 0},
                               {"seat": 1, "player": "bob", "open": True, "score": 23, "remembered": 0, "points": 23}],
                },
            ),
            OpenApiExample(
                "goat-gamesburg: remembered points are not points", response_only=True, status_codes=["200"],
                description="With remembered_counts false (D-8) a player's points are the written score alone; "
                            "the remembered points are still shown.",
                value={
                    "rounds": [{"round": 1, "end": "out", "seat": 1, "hands": [9, 0], "round_points": [9, 0],
                                "fish_pot": 0, "draw": False, "hand_tiles": [["4-5"], []],
                                "players": [{"open": False, "score": 0, "remembered": 9, "points": 0},
                                            {"open": False, "score": 0, "remembered": 0, "points": 0}]}],
                    "fish_pot": 0,
                    "totals": [{"seat": 0, "player": "alice", "open": False, "score": 0, "remembered": 9, "points": 0},
                               {"seat": 1, "player": "bob", "open": False, "score": 0, "remembered": 0, "points": 0}],
                },
            ),
            OpenApiExample(
                "domino-3rounds: each round names its winners", response_only=True, status_codes=["200"],
                description="The fewest pips left win the round; ties share (RULES.md §8).",
                value={
                    "rounds": [{"round": 1, "end": "out", "seat": 0, "hands": [0, 7, 0], "round_points": [0, 7, 0],
                                "fish_pot": 0, "draw": False, "hand_tiles": [[], ["3-4"], ["0-0"]], "winners": [0, 2],
                                "players": [{"open": False, "score": 0, "remembered": 0, "points": 0},
                                            {"open": False, "score": 7, "remembered": 0, "points": 7},
                                            {"open": False, "score": 0, "remembered": 0, "points": 0}]}],
                    "fish_pot": 0,
                    "totals": [{"seat": 0, "player": "alice", "open": False, "score": 0, "remembered": 0, "points": 0},
                               {"seat": 1, "player": "bob", "open": False, "score": 7, "remembered": 0, "points": 7},
                               {"seat": 2, "player": "carl", "open": False, "score": 0, "remembered": 0,
                                "points": 0}],
                },
            ),
            UNAUTHENTICATED,
            NOT_FOUND,
        ],
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = game_get(game_id)
        state = selectors.game_state(game=game)
        response = Response(selectors.scoresheet(game=game, state=state))
        response["ETag"] = etag(state.version)
        return response


class GameReplayView(GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @extend_schema(
        operation_id="games_replay",
        summary="Full state after an event",
        description="Everything (hands, bazaar order, seed) after event `at` (default: the last). Only once "
                    "the game has ended (409 `game_not_ended` before), or for auditors without a seat at it.",
        parameters=[GAME_ID, ReplayQuerySerializer],
        responses={200: ReplaySerializer, **problem_responses(400, 401, 404, 409)},
        examples=[
            OpenApiExample(
                "after the deal", response_only=True, status_codes=["200"],
                value={k: v for k, v in GAME_EXAMPLE.items()
                       if k not in ("id", "deadline", "hand", "legal_moves", "created_at", "your_seat")}
                | {"hands": [GAME_EXAMPLE["hand"], ["0-0", "0-1", "2-2", "2-6", "3-4", "4-4", "5-6"]],
                   "bazaar_tiles": ["0-2", "0-4", "0-5", "0-6", "1-2", "1-3", "1-5", "1-6", "2-3", "2-4",
                                    "3-5", "3-6", "4-5", "6-6"],
                   "must_lead": "1-1", "pending": {"action": "play", "seat": 0}, "rounds": [],
                   "status": "finished", "server_seed": "5f" * 32},
            ),
            problem_example(400, "invalid", "at: The game has only 211 events.",
                            {"at": ["The game has only 211 events."]}),
            UNAUTHENTICATED,
            NOT_FOUND,
            NOT_ENDED,
        ],
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        query = ReplayQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        game = game_get(game_id)
        ended_or_auditor(game, request.user)
        at = query.validated_data["at"]
        if at is None:
            at = game.version
        elif at > game.version:
            message = gettext("The game has only %(version)s events.") % {"version": game.version}
            raise ServiceError("invalid", f"at: {message}", status=400, errors={"at": [message]})
        state = selectors.game_state(game=game, upto=at)
        audit.audit_record_hidden_view(user=request.user, game=game, what="api_replay")  # only if running
        return Response(selectors.full_state(state))


class GameVerifyView(GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @extend_schema(
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
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = game_get(game_id)
        ended_or_auditor(game, request.user)
        return Response(verification.game_verify(game=game).to_dict())
