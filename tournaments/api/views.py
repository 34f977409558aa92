"""The tournaments API's views (docs/tournaments.md): create (staff), list, detail, registration,
standings, the organiser's actions, the crosstable, results.csv and a player's tournaments. Thin:
validate, call a service or selector, shape the answer."""

from __future__ import annotations

from django.http import HttpResponse
from rest_framework import generics, permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.players.backends import user_by_username
from goat.players.services import player_get
from goat.web.api.idempotency import idempotent
from goat.web.api.negotiation import JSONForErrors
from goat.web.api.pagination import Pagination
from goat.web.csvfiles import csv_writer
from goat.web.db.replica import PublicReadView
from goat.web.errors import WebError
from tournaments.errors import TournamentError

from .. import access, selectors, services
from ..access import IsStaff, IsStaffForPost
from ..models import Standing, Tournament
from . import schema
from .serializers import (
    CancelSerializer,
    CrosstableRowSerializer,
    PlayerTournamentSerializer,
    RegisterBodySerializer,
    StandingSerializer,
    TournamentCreateSerializer,
    TournamentListQuerySerializer,
    TournamentSerializer,
    WithdrawSerializer,
)


def _tournament_or_404(tournament_id: int) -> Tournament:
    tournament = selectors.tournament_get(tournament_id=tournament_id)
    if tournament is None:
        raise WebError.NOT_FOUND(services.TOURNAMENT_NOT_FOUND)
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

    @schema.tournaments_list
    def get(self, request: Request, *args, **kwargs) -> Response:
        return self.list(request, *args, **kwargs)

    @schema.tournaments_create
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

    @schema.tournaments_retrieve
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(selectors.tournament_detail(_tournament_or_404(tournament_id)))


class TournamentRegistrationView(APIView):
    @schema.tournaments_register
    def post(self, request: Request, tournament_id: int) -> Response:
        body = RegisterBodySerializer(data=request.data or {})
        body.is_valid(raise_exception=True)
        registration = services.tournament_register(tournament_id=tournament_id, player=request.user,
                                                    invite_code=body.validated_data.get("invite_code"))
        return Response({"tournament": registration.tournament_id, "player": request.user.get_username(),
                         "registered_at": registration.registered_at, "fee_paid": registration.fee_paid},
                        status=status.HTTP_201_CREATED)

    @schema.tournaments_withdraw
    def delete(self, request: Request, tournament_id: int) -> Response:
        services.tournament_withdraw(tournament_id=tournament_id, player=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TournamentStartView(APIView):
    permission_classes = [permissions.IsAuthenticated, IsStaff]

    @schema.tournaments_start
    def post(self, request: Request, tournament_id: int) -> Response:
        services.tournament_start_now(tournament_id=tournament_id)
        return Response(selectors.tournament_detail(_tournament_or_404(tournament_id)))


class TournamentCancelView(APIView):
    permission_classes = [permissions.IsAuthenticated, IsStaff]

    @schema.tournaments_cancel
    def post(self, request: Request, tournament_id: int) -> Response:
        body = CancelSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.tournament_cancel(tournament_id=tournament_id, reason=body.validated_data["reason"])
        return Response(selectors.tournament_detail(_tournament_or_404(tournament_id)))


class TournamentWithdrawView(APIView):
    @schema.tournaments_withdraw_running
    def post(self, request: Request, tournament_id: int) -> Response:
        body = WithdrawSerializer(data=request.data or {})
        body.is_valid(raise_exception=True)
        name = body.validated_data.get("player")
        player = request.user
        if name is not None:
            named = user_by_username(name)
            if named is None or named.pk != request.user.pk:
                if not access.may_withdraw(request.user, named):
                    raise WebError.PERMISSION_DENIED(access.WITHDRAW_OTHERS)
                if named is None:
                    raise TournamentError.NOT_REGISTERED(services.PLAYER_NOT_REGISTERED.format(player=name))
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

    @schema.tournaments_standings
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament_or_404(tournament_id)
        page = self.paginate_queryset(selectors.tournament_standings(tournament=tournament))
        return self.get_paginated_response([selectors.standing_row(s) for s in page])



# --- crosstable, results.csv, a player's tournaments -----------------------------


class TournamentCrosstableView(PublicStandingsView):
    serializer_class = CrosstableRowSerializer

    @schema.tournaments_crosstable
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament_or_404(tournament_id)
        page = self.paginate_queryset(selectors.tournament_standings(tournament=tournament))
        return self.get_paginated_response(selectors.tournament_crosstable(tournament=tournament, standings=page))


class TournamentResultsCSVView(PublicReadView, APIView):
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    content_negotiation_class = JSONForErrors

    @schema.tournaments_results_csv
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

    @schema.players_tournaments_list
    def get(self, request: Request, username: str) -> Response:
        player = player_get(username=username)
        page = self.paginate_queryset(selectors.player_tournaments(player=player))
        return self.get_paginated_response([selectors.player_tournament_row(r) for r in page])
