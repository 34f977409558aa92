"""Tournaments API (docs/tournaments.md): create (staff), list, detail, registration, standings."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import generics, permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.engine import RULESETS
from goat.games.api.serializers import options_schema
from goat.games.api.stream_schema import stream_operation
from goat.players.backends import user_by_username
from goat.players.services import player_get
from goat.web.csvfiles import csv_writer
from goat.web.errors import ServiceError
from goat.web.fields import StrictCharField, StrictIntegerField, StrictSerializer
from goat.web.idempotency import idempotent
from goat.web.pagination import Pagination
from goat.web.problems import problem_example, problem_responses
from goat.web.replica import PublicReadView
from goat.web.schema import COMMON_PROBLEMS, ID_SCHEMA, IDEMPOTENCY_KEY, IN_PROGRESS, UNAUTHENTICATED

from . import schedules, selectors, services
from .models import Standing, Tournament, TournamentFormat, TournamentSchedule, TournamentStatus

STATUSES = list(TournamentStatus.values)
STATUS_CHOICE = gettext_lazy("Must be scheduled, running, finished or cancelled.")

# --- serializers -------------------------------------------------------------------------------


@extend_schema_field(options_schema(ante=False))
class TournamentOptionsField(serializers.DictField):
    """Overrides of the ruleset's options for every game of the tournament (no ante)."""


#: the shortest invite code a tournament takes: with wrong codes throttled (``invite_player``,
#: ``invite_tournament``), 8 characters leave no code to guess in a tournament's lifetime
INVITE_CODE_MIN_LENGTH = 8


class EntrySerializer(StrictSerializer):
    min_games = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, allow_null=True,
                                   help_text="Games played on the ruleset's all-time board, at least.")
    min_rating = StrictIntegerField(min_value=0, max_value=2**31 - 1, required=False, allow_null=True,
                                    help_text="Rating on the ruleset's all-time board, at least.")
    max_rating = StrictIntegerField(min_value=0, max_value=2**31 - 1, required=False, allow_null=True,
                                    help_text="Rating on the ruleset's all-time board, at most.")
    invite_code = StrictCharField(min_length=INVITE_CODE_MIN_LENGTH, max_length=64, required=False, allow_null=True,
                                  trim_whitespace=False, write_only=True,
                                  help_text=f"Registration needs this code; never shown back. At least "
                                            f"{INVITE_CODE_MIN_LENGTH} characters.")

    def validate(self, attrs):
        attrs = super().validate(attrs)
        low, high = attrs.get("min_rating"), attrs.get("max_rating")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError({"max_rating": ["Must be at least min_rating."]})
        return attrs


@extend_schema_field(EntrySerializer)
class EntryField(serializers.Field):
    """``entry``: an object validated by EntrySerializer (strict: an unknown key is refused)."""

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError("Must be an object of entry conditions.")
        entry = EntrySerializer(data=data)
        if not entry.is_valid():
            raise serializers.ValidationError(entry.errors)
        return dict(entry.validated_data)

    def to_representation(self, value):
        return value


class TournamentCreateSerializer(StrictSerializer):
    name = StrictCharField(max_length=120)
    ruleset = serializers.ChoiceField(choices=list(RULESETS), error_messages={
        "invalid_choice": format_lazy(gettext_lazy("Not a ruleset; choose one of: {rulesets}."),
                                  rulesets=", ".join(RULESETS))})
    options = TournamentOptionsField(required=False, default=dict,
                                     help_text="Overrides of the ruleset's options for every game (no `ante`).")
    format = serializers.ChoiceField(choices=TournamentFormat.choices, help_text="swiss or arena.",
                                     error_messages={"invalid_choice": gettext_lazy("Must be swiss or arena.")})
    rounds = StrictIntegerField(min_value=1, max_value=50, required=False, default=None,
                                help_text="Swiss: number of rounds (required). Arena: ignored.")
    table_size = StrictIntegerField(min_value=2, max_value=4, help_text="Players per table, 2 to 4.")
    starts_at = serializers.DateTimeField(help_text="ISO 8601; the scheduler starts the tournament then.")
    duration_minutes = StrictIntegerField(min_value=0, max_value=7 * 24 * 60, required=False, default=0,
                                          help_text="Arena: minutes during which tables are started (required).")
    max_players = StrictIntegerField(min_value=1, max_value=10000)
    entry_fee = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, default=0,
                                   help_text="Chips debited on registration into the prize pool.")
    entry = EntryField(required=False, help_text="Entry conditions, checked at registration (all optional).")

    def validate(self, attrs):
        attrs = super().validate(attrs)
        if attrs["format"] == TournamentFormat.SWISS and not attrs.get("rounds"):
            raise serializers.ValidationError({"rounds": [gettext_lazy("A swiss tournament needs rounds (1 to 50).")]})
        if attrs["format"] == TournamentFormat.ARENA and not attrs.get("duration_minutes"):
            raise serializers.ValidationError({"duration_minutes": [
                gettext_lazy("An arena needs a duration of at least 1 minute.")]})
        attrs["rounds"] = attrs.get("rounds") or 0
        return attrs


class EntryViewSerializer(serializers.Serializer):
    min_games = serializers.IntegerField(allow_null=True)
    min_rating = serializers.IntegerField(allow_null=True)
    max_rating = serializers.IntegerField(allow_null=True)
    invite_only = serializers.BooleanField(help_text="Registration needs an invite code.")


class TournamentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    ruleset = serializers.CharField()
    options = serializers.DictField(help_text="Fully resolved options of the games.")
    format = serializers.ChoiceField(choices=TournamentFormat.choices)
    rounds = serializers.IntegerField(help_text="Swiss rounds (0 for an arena).")
    table_size = serializers.IntegerField()
    starts_at = serializers.DateTimeField()
    duration_minutes = serializers.IntegerField()
    max_players = serializers.IntegerField()
    entry_fee = serializers.IntegerField()
    status = serializers.CharField(help_text="scheduled, running, finished or cancelled.")
    created_by = serializers.CharField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    ends_at = serializers.DateTimeField(allow_null=True, help_text="Arena: no table starts after this.")
    prize_pool = serializers.IntegerField()
    players = serializers.IntegerField(help_text="Registered players.")
    entry = EntryViewSerializer(help_text="Entry conditions (the invite code itself is never shown).")
    cancelled_at = serializers.DateTimeField(allow_null=True)
    cancel_reason = serializers.CharField(help_text="Why staff cancelled it (empty otherwise).")


class RoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    bye = serializers.CharField(allow_null=True, help_text="The player without a table this round, if any.")


class TableSerializer(serializers.Serializer):
    round = serializers.IntegerField(allow_null=True, help_text="Round number (null in an arena).")
    number = serializers.IntegerField()
    game = serializers.IntegerField(help_text="The game's id (GET /api/games/{id}/).")
    status = serializers.CharField(help_text="The game's status.")
    players = serializers.ListField(child=serializers.CharField(), help_text="Usernames in seat order.")
    turn = serializers.IntegerField(allow_null=True)
    points = serializers.ListField(child=serializers.IntegerField(), help_text="Game points per seat.")
    result = serializers.DictField(allow_null=True)


class PrizeSerializer(serializers.Serializer):
    place = serializers.IntegerField()
    player = serializers.CharField()
    amount = serializers.IntegerField()


class TournamentDetailSerializer(TournamentSerializer):
    played_rounds = RoundSerializer(many=True)
    tables = TableSerializer(many=True)
    prizes = PrizeSerializer(many=True)


class WithdrawnSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    player = serializers.CharField()
    withdrawn_at = serializers.DateTimeField()
    withdrawn_by = serializers.CharField(help_text="The player themself, or the staff member.")


WITHDRAW_OTHERS = "Only staff can withdraw another player."


class RegisterBodySerializer(StrictSerializer):
    invite_code = StrictCharField(max_length=64, required=False, allow_null=True, trim_whitespace=False,
                                  help_text="The tournament's invite code, if it has one.")


class RegistrationSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    player = serializers.CharField()
    registered_at = serializers.DateTimeField()
    fee_paid = serializers.IntegerField()


class TiebreaksSerializer(serializers.Serializer):
    goats = serializers.IntegerField(help_text="Fewer is better.")
    opponents_points = serializers.FloatField(
        help_text="Buchholz for tables: over the player's games, Σ the mean standings points of the others at "
                  "the table (two decimals); higher is better.")
    game_points = serializers.IntegerField(help_text="Σ game points at the end of the player's games; lower is better.")
    byes = serializers.IntegerField()
    registration_order = serializers.IntegerField(help_text="Earlier is better (the last tiebreak).")


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    points = serializers.IntegerField()
    games = serializers.IntegerField()
    withdrawn = serializers.BooleanField(help_text="The player withdrew while the tournament ran (seated no more).")
    tiebreaks = TiebreaksSerializer()


class TournamentListQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=STATUSES, required=False,
                                     error_messages={"invalid_choice": STATUS_CHOICE})


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


def _tournament_or_404(tournament_id: int) -> Tournament:
    tournament = selectors.tournament_get(tournament_id=tournament_id)
    if tournament is None:
        raise ServiceError("not_found", services.TOURNAMENT_NOT_FOUND, status=404)
    return tournament


# --- views -------------------------------------------------------------------------------------


class IsStaffForPost(permissions.BasePermission):
    """Anyone authenticated reads; only staff create."""

    message = "Only staff can create tournaments."

    def has_permission(self, request, view):
        return request.method in permissions.SAFE_METHODS or bool(request.user and request.user.is_staff)


class TournamentListCreateView(PublicReadView, generics.ListAPIView):
    serializer_class = TournamentSerializer
    pagination_class = Pagination
    filter_backends: list = []
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, IsStaffForPost]  # public reads, staff writes
    queryset = Tournament.objects.none()

    def get_queryset(self):
        query = TournamentListQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return selectors.tournament_list(status=query.validated_data.get("status"))

    def list(self, request: Request, *args, **kwargs) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([selectors.tournament_dict(t) for t in page])

    @extend_schema(
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
    def get(self, request: Request, *args, **kwargs) -> Response:
        return self.list(request, *args, **kwargs)

    @extend_schema(
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
        tags=["tournaments"],
    )
    def post(self, request: Request) -> Response:
        def create() -> Response:
            serializer = TournamentCreateSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            tournament = services.tournament_create(created_by=request.user, **serializer.validated_data)
            return Response(selectors.tournament_dict(_tournament_or_404(tournament.pk)),
                            status=status.HTTP_201_CREATED)

        return idempotent(self, request, create)


class TournamentDetailView(PublicReadView, APIView):
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @extend_schema(
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
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(selectors.tournament_detail(_tournament_or_404(tournament_id)))


class TournamentRegistrationView(APIView):
    @extend_schema(
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
        tags=["tournaments"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        body = RegisterBodySerializer(data=request.data or {})
        body.is_valid(raise_exception=True)
        registration = services.tournament_register(tournament_id=tournament_id, player=request.user,
                                                    invite_code=body.validated_data.get("invite_code"))
        return Response({"tournament": registration.tournament_id, "player": request.user.get_username(),
                         "registered_at": registration.registered_at, "fee_paid": registration.fee_paid},
                        status=status.HTTP_201_CREATED)

    @extend_schema(
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
        tags=["tournaments"],
    )
    def delete(self, request: Request, tournament_id: int) -> Response:
        services.tournament_withdraw(tournament_id=tournament_id, player=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class IsStaff(permissions.BasePermission):
    message = "Only staff can do this."

    def has_permission(self, request, view):
        return bool(request.user and request.user.is_staff)


class CancelSerializer(StrictSerializer):
    reason = StrictCharField(min_length=1, max_length=500, help_text="Why; shown on the tournament's pages.")


class WithdrawSerializer(StrictSerializer):
    player = StrictCharField(max_length=150, required=False,
                             help_text="Staff: the username to withdraw. A player withdraws themself without it.")


WITHDRAW_EXAMPLE = {"tournament": 7, "player": "bob", "withdrawn_at": "2025-06-06T18:42:10Z",
                    "withdrawn_by": "bob"}


class TournamentStartView(APIView):
    permission_classes = [permissions.IsAuthenticated, IsStaff]

    @extend_schema(
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
        tags=["tournaments"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        services.tournament_start_now(tournament_id=tournament_id)
        return Response(selectors.tournament_detail(_tournament_or_404(tournament_id)))


class TournamentCancelView(APIView):
    permission_classes = [permissions.IsAuthenticated, IsStaff]

    @extend_schema(
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
        tags=["tournaments"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        body = CancelSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.tournament_cancel(tournament_id=tournament_id, reason=body.validated_data["reason"])
        return Response(selectors.tournament_detail(_tournament_or_404(tournament_id)))


class TournamentWithdrawView(APIView):
    @extend_schema(
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
            problem_example(403, "permission_denied", WITHDRAW_OTHERS),
            problem_example(404, "not_registered", services.NOT_REGISTERED),
            problem_example(409, "tournament_not_running", services.NOT_RUNNING.format(status="finished")),
            problem_example(409, "already_withdrawn", services.ALREADY_WITHDRAWN.format(player="bob")),
        ],
        tags=["tournaments"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        body = WithdrawSerializer(data=request.data or {})
        body.is_valid(raise_exception=True)
        name = body.validated_data.get("player")
        player = request.user
        if name is not None:
            named = user_by_username(name)
            if named is None or named.pk != request.user.pk:
                if not request.user.is_staff:
                    raise ServiceError("permission_denied", WITHDRAW_OTHERS, status=403)
                if named is None:
                    raise ServiceError("not_registered", services.PLAYER_NOT_REGISTERED.format(player=name),
                                       status=404)
                player = named
        registration = services.tournament_withdraw_running(tournament_id=tournament_id, player=player,
                                                            by=request.user)
        return Response({"tournament": registration.tournament_id, "player": player.get_username(),
                         "withdrawn_at": registration.withdrawn_at, "withdrawn_by": request.user.get_username()})


class PublicStandingsView(PublicReadView, generics.ListAPIView):
    """A public, paginated list read from standings rows (the standings, the crosstable, a player's
    tournaments): the views differ only in their serializer and in the ``get`` that picks the rows."""

    permission_classes = [permissions.IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    pagination_class = Pagination
    filter_backends: list = []
    queryset = Standing.objects.none()


class TournamentStandingsView(PublicStandingsView):
    serializer_class = StandingSerializer

    @extend_schema(
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
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament_or_404(tournament_id)
        page = self.paginate_queryset(selectors.tournament_standings(tournament=tournament))
        return self.get_paginated_response([selectors.standing_row(s) for s in page])


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


# --- crosstable, results.csv, a player's tournaments -----------------------------


class CrosstableGameSerializer(serializers.Serializer):
    round = serializers.IntegerField(allow_null=True, help_text="Swiss round (null in an arena).")
    table = serializers.IntegerField(help_text="Table number (per round in a swiss, per tournament in an arena).")
    game = serializers.IntegerField(help_text="The game's id (GET /api/games/{id}/).")
    status = serializers.CharField(help_text="The game's status.")
    opponents = serializers.ListField(child=serializers.CharField(),
                                      help_text="The others at the table, in seat order.")
    points = serializers.IntegerField(allow_null=True, help_text="The player's game points at the end (§7); null "
                                                                 "until the game is recorded.")
    rating_points = serializers.IntegerField(allow_null=True, help_text="Standings points the game gave (§9).")
    goat = serializers.BooleanField(allow_null=True, help_text="Whether the player was among the game's goats.")


class CrosstableRowSerializer(serializers.Serializer):
    player = serializers.CharField()
    rank = serializers.IntegerField()
    withdrawn = serializers.BooleanField(help_text="The player withdrew while the tournament ran.")
    games = CrosstableGameSerializer(many=True, help_text="In play order; a bye is no game.")


class PlayerTournamentSerializer(serializers.Serializer):
    tournament = serializers.IntegerField(help_text="The tournament's id.")
    name = serializers.CharField()
    status = serializers.CharField()
    format = serializers.CharField()
    starts_at = serializers.DateTimeField()
    rank = serializers.IntegerField(allow_null=True, help_text="Place in the standings (null before the start).")
    points = serializers.IntegerField()
    games = serializers.IntegerField()
    withdrawn = serializers.BooleanField()


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


class JSONForErrors:
    """Content negotiation that ignores ``Accept``: the view answers its own media type itself and every
    problem is JSON (a client asking for ``text/csv`` still gets a readable 404)."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class TournamentCrosstableView(PublicStandingsView):
    serializer_class = CrosstableRowSerializer

    @extend_schema(
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
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament_or_404(tournament_id)
        page = self.paginate_queryset(selectors.tournament_standings(tournament=tournament))
        return self.get_paginated_response(selectors.tournament_crosstable(tournament=tournament, standings=page))


class TournamentResultsCSVView(PublicReadView, APIView):
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    content_negotiation_class = JSONForErrors

    @extend_schema(
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
    def get(self, request: Request, tournament_id: int) -> HttpResponse:
        tournament = _tournament_or_404(tournament_id)
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="tournament-{tournament.pk}-results.csv"'
        writer = csv_writer(response)
        writer.writerow(selectors.RESULTS_COLUMNS)
        for row in selectors.tournament_results_rows(tournament=tournament):
            writer.writerow([_csv_cell(row[column]) for column in selectors.RESULTS_COLUMNS])
        return response


def _csv_cell(value: object) -> object:
    """A cell as text: booleans as true/false (the writer escapes a text that begins like a formula)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


class PlayerTournamentsView(PublicStandingsView):
    serializer_class = PlayerTournamentSerializer

    @extend_schema(
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
    def get(self, request: Request, username: str) -> Response:
        player = player_get(username=username)
        page = self.paginate_queryset(selectors.player_tournaments(player=player))
        return self.get_paginated_response([selectors.player_tournament_row(r) for r in page])


# --- schedules (staff) -----------------------------------------------------------------------------


def schedule_template_validate(template: Any, first_start) -> dict[str, Any]:
    """A schedule's template checked as a tournament would be at creation (every field but ``starts_at``,
    the options resolved by the engine): 400 ``invalid`` with ``errors.template`` (or ``invalid_options``)
    when it would not make a tournament. Returns what is stored: the validated fields, the invite code
    as its digest."""
    if not isinstance(template, dict):
        message = gettext("Must be an object of tournament fields.")
        raise ServiceError("invalid", f"template: {message}", status=400, errors={"template": [message]})
    if "starts_at" in template:
        message = "Every tournament field except starts_at: each occurrence starts at first_start + k * every."
        raise ServiceError("invalid", f"template: {message}", status=400, errors={"template": [message]})
    serializer = TournamentCreateSerializer(data={**template, "starts_at": first_start})
    if not serializer.is_valid():
        messages = [f"{name}: {message}" for name, problems in serializer.errors.items()
                    for message in (problems if isinstance(problems, list) else [problems])]
        raise ServiceError("invalid", "template: " + " ".join(messages), status=400, errors={"template": messages})
    data = dict(serializer.validated_data)
    data.pop("starts_at")
    services.tournament_options(ruleset=data["ruleset"], table_size=data["table_size"],
                                options=data.get("options"))  # InvalidOptions: 400 invalid_options
    entry = dict(data.get("entry") or {})
    code = entry.pop("invite_code", None)
    if code:
        entry["invite_code_digest"] = services.invite_code_digest(code)
    data["entry"] = entry
    return data


def schedule_dict(schedule: TournamentSchedule) -> dict[str, Any]:
    template = dict(schedule.template)
    entry = dict(template.get("entry") or {})
    if entry.pop("invite_code_digest", None):
        entry["invite_only"] = True
    template["entry"] = entry
    return {"id": schedule.pk, "template": template, "first_start": schedule.first_start,
            "every": schedules.iso_text(schedule.every),
            "announce_before": schedules.iso_text(schedule.announce_before),
            "active": schedule.active, "created_by": schedule.created_by.get_username(),
            "created_at": schedule.created_at, "tournaments": schedule.tournaments.count()}


class ScheduleCreateSerializer(StrictSerializer):
    template = serializers.DictField(help_text="Every tournament field (as POST /api/tournaments/) except "
                                               "starts_at; checked now, not when the beat runs.")
    first_start = serializers.DateTimeField(help_text="The first occurrence's start (ISO 8601).")
    every = serializers.CharField(max_length=64, help_text="ISO 8601 duration, at least PT5M (PT1H … P7D).")
    announce_before = serializers.CharField(max_length=64, required=False, default="PT0S",
                                            help_text="ISO 8601 duration: each occurrence is created this long "
                                                      "before its start (at most P31D and 100 periods).")


class ScheduleUpdateSerializer(StrictSerializer):
    active = serializers.BooleanField(required=False, help_text="false stops the schedule; created tournaments "
                                                                "stay as they are.")
    template = serializers.DictField(required=False)
    first_start = serializers.DateTimeField(required=False)
    every = serializers.CharField(max_length=64, required=False)
    announce_before = serializers.CharField(max_length=64, required=False)


class ScheduleSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    template = serializers.DictField(help_text="The tournament fields (an invite code shows as invite_only).")
    first_start = serializers.DateTimeField()
    every = serializers.CharField(help_text="ISO 8601 duration.")
    announce_before = serializers.CharField(help_text="ISO 8601 duration.")
    active = serializers.BooleanField()
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    tournaments = serializers.IntegerField(help_text="How many tournaments it has created.")


SCHEDULE_TEMPLATE = {"name": "Nightly arena", "ruleset": "goat-classic", "format": "arena", "table_size": 2,
                     "duration_minutes": 60, "max_players": 100, "entry_fee": 10}
SCHEDULE_EXAMPLE = {"id": 3, "template": {**SCHEDULE_TEMPLATE, "options": {}, "rounds": 0, "entry": {}},
                    "first_start": "2025-06-01T21:00:00Z", "every": "P1D", "announce_before": "PT12H",
                    "active": True, "created_by": "director", "created_at": "2025-05-30T10:00:00Z",
                    "tournaments": 4}
SCHEDULE_ID = OpenApiParameter("schedule_id", ID_SCHEMA, OpenApiParameter.PATH, description="The schedule's id.")
EVERY_TOO_SHORT = "The period must be at least 5 minutes (PT5M)."


def _schedule_fields(data: dict[str, Any], schedule: TournamentSchedule | None = None) -> dict[str, Any]:
    """Validated model fields from a create or update body (400 naming the field)."""
    fields: dict[str, Any] = {}
    if "active" in data:
        fields["active"] = data["active"]
    if "first_start" in data:
        fields["first_start"] = data["first_start"]
    if "every" in data or "announce_before" in data:
        every = data.get("every", schedules.iso_text(schedule.every) if schedule else None)
        ahead = data.get("announce_before", schedules.iso_text(schedule.announce_before) if schedule else "PT0S")
        fields["every"], fields["announce_before"] = schedules.schedule_durations(every=every, announce_before=ahead)
    if "template" in data:
        first = fields.get("first_start") or (schedule.first_start if schedule else None)
        fields["template"] = schedule_template_validate(data["template"], first)
    return fields


class ScheduleListCreateView(generics.ListAPIView):
    serializer_class = ScheduleSerializer
    pagination_class = Pagination
    filter_backends: list = []
    permission_classes = [permissions.IsAuthenticated, IsStaff]
    queryset = TournamentSchedule.objects.none()

    def get_queryset(self):
        return TournamentSchedule.objects.select_related("created_by").order_by("-id")

    def list(self, request: Request, *args, **kwargs) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([schedule_dict(s) for s in page])

    @extend_schema(
        operation_id="tournament_schedules_list", summary="Tournament schedules (staff)",
        description="Recurring tournaments, newest first.",
        responses={200: ScheduleSerializer(many=True), **problem_responses(401, 403, 404)},
        examples=[OpenApiExample("schedules", value=SCHEDULE_EXAMPLE, response_only=True, status_codes=["200"]),
                  UNAUTHENTICATED, problem_example(403, "permission_denied", IsStaff.message)],
        tags=["tournaments"],
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return self.list(request, *args, **kwargs)

    @extend_schema(
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
    def post(self, request: Request) -> Response:
        body = ScheduleCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        fields = _schedule_fields(body.validated_data)
        schedule = schedules.schedule_create(created_by=request.user, **fields)
        return Response(schedule_dict(schedule), status=status.HTTP_201_CREATED)


class ScheduleDetailView(APIView):
    permission_classes = [permissions.IsAuthenticated, IsStaff]

    def _get(self, schedule_id: int) -> TournamentSchedule:
        schedule = TournamentSchedule.objects.select_related("created_by").filter(pk=schedule_id).first()
        if schedule is None:
            raise ServiceError("not_found", schedules.NO_SCHEDULE, status=404)
        return schedule

    @extend_schema(
        operation_id="tournament_schedules_retrieve", summary="A tournament schedule (staff)",
        parameters=[SCHEDULE_ID], responses={200: ScheduleSerializer, **problem_responses(401, 403, 404)},
        examples=[OpenApiExample("schedule", value=SCHEDULE_EXAMPLE, response_only=True, status_codes=["200"]),
                  UNAUTHENTICATED, problem_example(403, "permission_denied", IsStaff.message),
                  problem_example(404, "not_found", "No tournament schedule with that id.")],
        tags=["tournaments"],
    )
    def get(self, request: Request, schedule_id: int) -> Response:
        return Response(schedule_dict(self._get(schedule_id)))

    @extend_schema(
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
    def patch(self, request: Request, schedule_id: int) -> Response:
        schedule = self._get(schedule_id)
        body = ScheduleUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        fields = _schedule_fields(body.validated_data, schedule)
        if fields:
            schedule = schedules.schedule_update(schedule_id=schedule.pk, **fields)
        return Response(schedule_dict(schedule))
