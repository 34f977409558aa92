"""Games API (docs/api.md "Games and moves" and "Events and what is hidden"): create, join, list,
view, move, resign, events, scoresheet, replay and verify.

Views are thin: validate the input, call one service or selector, shape the output. What a caller
may see is decided by ``goat.games.selectors``; every refusal is a ServiceError or an engine RulesError,
rendered as problem details by ``goat.web.api.problems``.

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

from django.http import HttpResponse
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext
from rest_framework import generics, status
from rest_framework.permissions import AllowAny, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.games import analysis, audit, records, selectors, services, signing, verification
from goat.games.api import schema
from goat.games.api.schema import INVALID_IF_MATCH, game_links
from goat.games.api.serializers import (
    EventsQuerySerializer,
    GameCreateSerializer,
    GameJoinSerializer,
    GameSummarySerializer,
    MoveSerializer,
    ReplayQuerySerializer,
)
from goat.games.errors import GameError
from goat.games.filters import GameFilter, MyGamesFilter
from goat.games.models import Game
from goat.games.viewer import Viewer
from goat.web.api.idempotency import idempotent
from goat.web.api.negotiation import JSONForErrors
from goat.web.api.schema import link
from goat.web.api.throttling import ScopedRateThrottle
from goat.web.db.replica import PublicReadView
from goat.web.errors import WebError

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
        raise GameError.INVALID_IF_MATCH(INVALID_IF_MATCH)
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


def game_get(game_id: int, user) -> Game:
    """The game ``user`` may see (a private table's running game is 404 to anyone not at it)."""
    return selectors.game_get(game_id=game_id, viewer=user)


def ended_or_auditor(game: Game, viewer: Viewer) -> None:
    """Replay and verify show hidden information: refused until the game ends, except to those who
    see it unredacted (Viewer.sees_everything: an auditor without a seat at the game)."""
    if not viewer.sees_everything(game):
        raise GameError.GAME_NOT_ENDED(services.GAME_NOT_ENDED)


class GameAPIView(APIView):
    """Game responses depend on who asks: caches must key them on the credentials."""

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        patch_vary_headers(response, VARY)
        return response


# --- Views ----------------------------------------------------------------------------------


class GameListCreateView(PublicReadView, generics.ListAPIView, GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    serializer_class = GameSummarySerializer
    schema_links = {"post": {201: game_links("")},
                    "get": {200: {"view": link("games_retrieve", "The first game of the page.",
                                               {"game_id": "$response.body#/results/0/id"}),
                                  "join": link("games_join", "Take a seat at the first game of the page.",
                                               {"game_id": "$response.body#/results/0/id"})}}}
    filterset_class = GameFilter
    queryset = selectors.games_public()

    @schema.games_list
    def get(self, request: Request, *args, **kwargs) -> Response:
        return self.list(request, *args, **kwargs)

    @schema.games_create
    def post(self, request: Request) -> Response:
        def create() -> Response:
            serializer = GameCreateSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            created = services.game_create(player=request.user, **serializer.validated_data)
            return with_etag(Response(selectors.loaded_view(created), status=status.HTTP_201_CREATED))

        return idempotent(self, request, create)


class GameRematchView(GameAPIView):
    schema_links = {"post": {201: game_links(""), 200: game_links("")}}

    @schema.games_rematch
    def post(self, request: Request, game_id: int) -> Response:
        offered, created = services.game_rematch(game_id=game_id, player=request.user)
        return with_etag(Response(selectors.loaded_view(offered),
                                  status=status.HTTP_201_CREATED if created else status.HTTP_200_OK))


class MyGamesView(generics.ListAPIView, GameAPIView):
    serializer_class = GameSummarySerializer
    filterset_class = MyGamesFilter
    queryset = Game.objects.none()  # the schema's model; each request gets the caller's games

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        return selectors.player_games(player=self.request.user)

    @schema.players_me_games
    def get(self, request: Request, *args, **kwargs) -> Response:
        return self.list(request, *args, **kwargs)


class GameJoinView(GameAPIView):
    schema_links = {"post": {200: game_links("")}}

    @schema.games_join
    def post(self, request: Request, game_id: int) -> Response:
        def join() -> Response:
            serializer = GameJoinSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            joined = services.game_join(game_id=game_id, player=request.user, **serializer.validated_data)
            return with_etag(Response(selectors.loaded_view(joined)))

        return idempotent(self, request, join)


class GameDetailView(PublicReadView, GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @schema.games_retrieve
    def get(self, request: Request, game_id: int) -> Response:
        game = game_get(game_id, request.user)
        if not_modified(request, etag(game.version)):
            return conditional(request, etag(game.version), dict)
        view = selectors.game_view_for(game=game, viewer=Viewer.of(game, request.user))
        response = Response(view)
        response["ETag"] = etag(view["version"])
        return response


class GameMoveView(GameAPIView):
    throttle_scope = "moves"
    schema_links = {"post": {201: game_links("/game")}}

    @schema.games_move
    def post(self, request: Request, game_id: int) -> Response:
        def play() -> Response:
            expected_version = if_match_version(request)
            serializer = MoveSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            loaded, events = services.game_play_tile(game_id=game_id, player=request.user,
                                                     expected_version=expected_version, **serializer.validated_data)
            view, shown = selectors.command_view(loaded, events, user=request.user)
            body = {"version": loaded.game.version, "events": shown, "game": view}
            response = Response(body, status=status.HTTP_201_CREATED)
            response["ETag"] = etag(loaded.game.version)
            return response

        return idempotent(self, request, play)


class GameResignView(GameAPIView):
    @schema.games_resign
    def post(self, request: Request, game_id: int) -> Response:
        loaded, _events = services.game_resign(game_id=game_id, player=request.user)
        return Response(selectors.loaded_view(loaded))


class GameLeaveView(GameAPIView):
    @schema.games_leave
    def post(self, request: Request, game_id: int) -> Response:
        loaded, _events = services.game_leave(game_id=game_id, player=request.user)
        return Response(selectors.game_view(game=loaded.game, state=loaded.state, seat=None))


class GameEventsView(PublicReadView, GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @schema.games_events
    def get(self, request: Request, game_id: int) -> Response:
        query = EventsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        game = game_get(game_id, request.user)
        version = game.version

        def build() -> dict[str, Any]:
            viewer = Viewer.of(game, request.user)
            if viewer.sees_everything(game):  # an auditor: who looked is recorded (while the game runs)
                audit.audit_record_hidden_view(user=request.user, game=game, what="api_events")
            events = selectors.events_for(game=game, viewer=viewer, after=query.validated_data["after"])
            # As of the game row read above: a move appended since then belongs to the next version.
            return {"version": version, "events": [e for e in events if e["seq"] <= version]}

        return conditional(request, etag(version), build)


class GameScoresheetView(PublicReadView, GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @schema.games_scoresheet
    def get(self, request: Request, game_id: int) -> Response:
        game = game_get(game_id, request.user)
        state = selectors.game_state(game=game)
        response = Response(selectors.scoresheet(game=game, state=state))
        response["ETag"] = etag(state.version)
        return response


class GameReplayView(PublicReadView, GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @schema.games_replay
    def get(self, request: Request, game_id: int) -> Response:
        query = ReplayQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        game = game_get(game_id, request.user)
        ended_or_auditor(game, Viewer.of(game, request.user))
        at = query.validated_data["at"]
        if at is None:
            at = game.version
        elif at > game.version:
            message = gettext("The game has only %(version)s events.") % {"version": game.version}
            raise WebError.INVALID(f"at: {message}", errors={"at": [message]})
        state = selectors.game_state(game=game, upto=at)
        audit.audit_record_hidden_view(user=request.user, game=game, what="api_replay")  # only if running
        return Response(selectors.full_state(state, game=game))


class GameVerifyView(PublicReadView, GameAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @schema.games_verify
    def get(self, request: Request, game_id: int) -> Response:
        game = game_get(game_id, request.user)
        ended_or_auditor(game, Viewer.of(game, request.user))
        return Response(verification.game_verify(game=game).to_dict())


class GameRecordView(PublicReadView, GameAPIView):
    """The signed record (docs/records.md) of an ended game, as text; problems stay JSON."""

    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    content_negotiation_class = JSONForErrors

    @schema.games_record
    def get(self, request: Request, game_id: int) -> HttpResponse:
        game = game_get(game_id, request.user)
        response = HttpResponse(records.game_record(game=game), content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'inline; filename="{records.record_filename(game)}"'
        return response


class SigningKeysView(APIView):
    """The public keys that sign game records, retired ones included (docs/records.md "Keys")."""

    permission_classes = [AllowAny]

    @schema.keys_list
    def get(self, request: Request) -> Response:
        return Response(signing.keyring().published())


class GameAnalysisView(GameAPIView):
    """docs/api.md "Computer analysis of a finished game": GET for anyone once the game ended, POST for a
    signed-in player (throttled by the ``analysis`` scope; the GET is not)."""

    permission_classes = [IsAuthenticatedOrReadOnly]
    throttle_scope = "analysis"

    def get_throttles(self):
        throttles = super().get_throttles()
        if self.request.method != "POST":
            return [t for t in throttles if not isinstance(t, ScopedRateThrottle)]
        return throttles

    @schema.games_analysis_read
    def get(self, request: Request, game_id: int) -> Response:
        code, body = analysis.analysis_read(game_id=game_id)
        return Response(body, status=code)

    @schema.games_analysis_request
    def post(self, request: Request, game_id: int) -> Response:
        code, body = analysis.analysis_request(game_id=game_id)
        return Response(body, status=code)
