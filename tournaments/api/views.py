"""The tournaments API's views (docs/tournaments.md): create (staff), list, detail, registration,
standings, the organiser's actions, the crosstable, results.csv and a player's tournaments. Thin:
validate, call a service or selector, shape the answer."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import generics, permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.players.backends import user_by_username
from goat.players.services import player_get
from goat.web.csvfiles import csv_writer
from goat.web.errors import ServiceError
from goat.web.fields import StrictCharField, StrictSerializer
from goat.web.idempotency import idempotent
from goat.web.negotiation import JSONForErrors
from goat.web.pagination import Pagination
from goat.web.problems import problem_example, problem_responses
from goat.web.replica import PublicReadView
from goat.web.schema import IDEMPOTENCY_KEY, IN_PROGRESS, UNAUTHENTICATED

from .. import access, selectors, services
from ..access import IsStaff, IsStaffForPost
from ..models import Standing, Tournament
from .schema import (
    CROSSTABLE_EXAMPLE,
    DETAIL_EXAMPLE,
    NOT_FOUND,
    PLAYER_TOURNAMENT_EXAMPLE,
    RESULTS_EXAMPLE,
    STANDING_EXAMPLE,
    TOURNAMENT_EXAMPLE,
    TOURNAMENT_ID,
)
from .serializers import (
    STATUS_CHOICE,
    STATUSES,
    CrosstableRowSerializer,
    PlayerTournamentSerializer,
    RegisterBodySerializer,
    RegistrationSerializer,
    StandingSerializer,
    TournamentCreateSerializer,
    TournamentDetailSerializer,
    TournamentListQuerySerializer,
    TournamentSerializer,
    WithdrawnSerializer,
)


def _tournament_or_404(tournament_id: int) -> Tournament:
    tournament = selectors.tournament_get(tournament_id=tournament_id)
    if tournament is None:
        raise ServiceError("not_found", services.TOURNAMENT_NOT_FOUND, status=404)
    return tournament



# --- views -------------------------------------------------------------------------------------


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
            problem_example(403, "permission_denied", access.WITHDRAW_OTHERS),
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
                if not access.may_withdraw(request.user, named):
                    raise ServiceError("permission_denied", access.WITHDRAW_OTHERS, status=403)
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



# --- crosstable, results.csv, a player's tournaments -----------------------------


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
