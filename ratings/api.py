"""Ratings API (docs/api.md and docs/decisions.md R-1..R-9)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from goat.engine import RULESETS
from goat.engine.rulesets import DEFAULT_RULESET
from goat.players import services as players
from goat.web.api.pagination import Pagination
from goat.web.api.problems import problem_example, problem_responses
from goat.web.api.schema import UNAUTHENTICATED
from goat.web.db.replica import PublicReadView

from . import selectors
from .models import LeaderboardRow, RatingEntry, RatingReason, SkillRating

# --- serializers -------------------------------------------------------------------------------


class RatingEntrySerializer(serializers.Serializer):
    game = serializers.IntegerField(source="game_id")
    points = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=RatingReason.values)
    at = serializers.DateTimeField()


class RatingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    bot = serializers.BooleanField(help_text="Whether the player is a bot (docs/api.md \"Bots\").")
    rating = serializers.IntegerField()
    games = serializers.IntegerField()
    goats = serializers.IntegerField()


class SkillRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    bot = serializers.BooleanField(help_text="Whether the player is a bot (docs/api.md \"Bots\").")
    ordinal = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()


class RatingBoardQuerySerializer(serializers.Serializer):
    period = serializers.ChoiceField(choices=["all", "month", "week"], default="all")
    ruleset = serializers.ChoiceField(choices=list(RULESETS), required=False, allow_blank=True)


class SkillBoardQuerySerializer(serializers.Serializer):
    ruleset = serializers.ChoiceField(choices=list(RULESETS), default=DEFAULT_RULESET)


# --- views -------------------------------------------------------------------------------------



def _page_example(name: str, row: dict) -> OpenApiExample:
    """An example row of a page (drf-spectacular wraps it in a list and the pagination envelope)."""
    return OpenApiExample(name, value=row, response_only=True, status_codes=["200"])


class PlayerRatingsView(PublicReadView, generics.ListAPIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    serializer_class = RatingEntrySerializer
    pagination_class = Pagination
    filter_backends: list = []
    queryset = RatingEntry.objects.none()  # for the schema; get_queryset() picks the player


    @extend_schema(
        operation_id="players_ratings_list",
        summary="A player's rating ledger",
        description="Rating points earned per ended game (docs/rules.md §9), newest first. The rating is their sum.",
        responses={200: RatingEntrySerializer, **problem_responses(401, 404)},
        examples=[
            _page_example("finished", {"game": 42, "points": 8, "reason": "finished", "at": "2025-06-01T12:00:00Z"}),
            _page_example("timed out", {"game": 17, "points": 0, "reason": "timeout", "at": "2025-05-30T18:21:07Z"}),
            UNAUTHENTICATED,
            problem_example(404, "not_found", "No player with this username."),
        ],
        tags=["players"],
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        return selectors.rating_ledger(player=players.player_get(username=self.kwargs["username"]))


class RankedListView(PublicReadView, generics.ListAPIView):
    """A board read in rank order; ``row()`` gets the rank as the position (page offset + index + 1).
    The rating board pages through a ``selectors.RankedBoard`` (an index range, R-9): same page
    numbers, ``count``, ``next``/``previous`` and 404 for a page out of range as any list."""

    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    pagination_class = Pagination
    filter_backends: list = []
    query_serializer: type[serializers.Serializer]

    def board(self, query: dict):
        raise NotImplementedError

    def row(self, rank: int, row) -> dict:
        raise NotImplementedError

    def list(self, request: Request, *args, **kwargs) -> Response:
        query = self.query_serializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        page = self.paginate_queryset(self.board(query.validated_data))
        offset = (self.paginator.page.number - 1) * self.paginator.page.paginator.per_page
        bots = players.bots_among(usernames=[r.username for r in page])  # one query for the page
        return self.get_paginated_response([{**self.row(rank, r), "bot": r.username in bots}
                                            for rank, r in selectors.ranked(page, offset)])


class RatingLeaderboardView(RankedListView):
    serializer_class = RatingRowSerializer
    queryset = LeaderboardRow.objects.none()
    query_serializer = RatingBoardQuerySerializer

    @extend_schema(
        operation_id="leaderboards_ratings",
        summary="Rating leaderboard",
        description=(
            "Players by rating points earned in the period (calendar month / ISO week in UTC, or all "
            "time), in one ruleset or (without `ruleset`) all. Ties: fewer games first, then username."
        ),
        parameters=[
            OpenApiParameter("period", str, enum=["all", "month", "week"], description="Default `all`."),
            OpenApiParameter("ruleset", str, enum=list(RULESETS), description="Default: every ruleset."),
        ],
        responses={200: RatingRowSerializer, **problem_responses(400, 401, 404)},
        examples=[
            _page_example("board", {"rank": 1, "player": "alice", "bot": False, "rating": 37, "games": 6,
                                    "goats": 1}),
            problem_example(400, "invalid", 'period: "year" is not a valid choice.',
                            {"period": ['"year" is not a valid choice.']}),
            UNAUTHENTICATED,
        ],
        tags=["leaderboards"],
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def board(self, query: dict):
        return selectors.rating_board(period=query["period"], ruleset=query.get("ruleset") or None)

    def row(self, rank: int, r) -> dict:
        return {"rank": rank, "player": r.username, "rating": r.rating, "games": r.games, "goats": r.goats}


class SkillLeaderboardView(RankedListView):
    serializer_class = SkillRowSerializer
    queryset = SkillRating.objects.none()
    query_serializer = SkillBoardQuerySerializer

    @extend_schema(
        operation_id="leaderboards_skill",
        summary="Skill leaderboard",
        description=(
            "Players by openskill (Plackett-Luce) ordinal `mu - 3*sigma` in one ruleset "
            f"(default `{DEFAULT_RULESET}`). Ties: fewer games first, then username."
        ),
        parameters=[OpenApiParameter("ruleset", str, enum=list(RULESETS), description=f"Default `{DEFAULT_RULESET}`.")],
        responses={200: SkillRowSerializer, **problem_responses(400, 401, 404)},
        examples=[
            _page_example("board", {"rank": 1, "player": "alice", "bot": False, "ordinal": 8.51, "mu": 27.1,
                                    "sigma": 6.2, "games": 12}),
            problem_example(400, "invalid", 'ruleset: "chess" is not a valid choice.',
                            {"ruleset": ['"chess" is not a valid choice.']}),
            UNAUTHENTICATED,
        ],
        tags=["leaderboards"],
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def board(self, query: dict):
        return selectors.skill_board(ruleset=query["ruleset"])

    def row(self, rank: int, r) -> dict:
        return {"rank": rank, "player": r.username, "ordinal": r.ordinal, "mu": r.mu, "sigma": r.sigma,
                "games": r.games}
