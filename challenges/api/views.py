"""Challenges API (docs/api.md "Challenges"): create and list, read one, accept, decline, cancel.

Views are thin: validate the input, call one service or selector, shape the output."""

from __future__ import annotations

from typing import Any

from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.players.services import player_is_bot
from goat.web.api.idempotency import idempotent
from goat.web.api.throttling import UserRateThrottle

from .. import bots, selectors, services
from ..models import Challenge
from . import schema
from .serializers import (
    BotUpgradeSerializer,
    ChallengeAcceptSerializer,
    ChallengeCreateSerializer,
    ChallengeDeclineSerializer,
    ChallengeListQuerySerializer,
    ChallengeSerializer,
)


def view_for(request: Request, challenge: Challenge) -> dict[str, Any]:
    """The challenge as the caller sees it, its link made absolute."""
    view = selectors.challenge_view(challenge, request.user)
    if view["link"]:
        view["link"] = request.build_absolute_uri(view["link"])
    return view


def answer(request: Request, challenge: Challenge, code: int = status.HTTP_200_OK) -> Response:
    """A command's answer: the challenge as it now is, read again (with its players)."""
    return Response(view_for(request, selectors.challenge_get(challenge_id=challenge.pk, user=request.user)),
                    status=code)


class BotRateThrottle(UserRateThrottle):
    """A bot's POSTs on challenges (create, accept, decline, cancel), counted per bot account on the
    rate ``bot_challenges`` (docs/api.md "Bots"); a person's are not counted here."""

    scope = "bot_challenges"

    def allow_request(self, request, view) -> bool:
        user = request.user
        if request.method != "POST" or not user.is_authenticated or not player_is_bot(player=user):
            return True
        return super().allow_request(request, view)


class ChallengeAPIView(APIView):
    throttle_classes = [*APIView.throttle_classes, BotRateThrottle]


class ChallengeListCreateView(generics.ListAPIView, ChallengeAPIView):
    serializer_class = ChallengeSerializer
    filter_backends: list = []
    queryset = Challenge.objects.none()  # the schema's model; each request gets the caller's

    def get_queryset(self):
        query = ChallengeListQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return selectors.challenges_of(user=self.request.user, **query.validated_data)

    def list(self, request: Request, *args, **kwargs) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([view_for(request, challenge) for challenge in page])

    @schema.challenges_list
    def get(self, request: Request, *args, **kwargs) -> Response:
        return self.list(request, *args, **kwargs)

    @schema.challenges_create
    def post(self, request: Request) -> Response:
        def create() -> Response:
            body = ChallengeCreateSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            fields = body.validated_data
            if set(request.data) == {"again_of"}:  # again with the same people: one challenge per old game
                challenge, created = services.challenge_again(player=request.user, game_id=fields["again_of"])
                return answer(request, challenge, status.HTTP_201_CREATED if created else status.HTTP_200_OK)
            challenge = services.challenge_create(challenger=request.user, **fields)
            return answer(request, challenge, status.HTTP_201_CREATED)

        return idempotent(self, request, create)


class ChallengeDetailView(ChallengeAPIView):
    @schema.challenges_retrieve
    def get(self, request: Request, challenge_id: int) -> Response:
        return Response(view_for(request, selectors.challenge_get(challenge_id=challenge_id, user=request.user)))


class ChallengeAcceptView(ChallengeAPIView):
    @schema.challenges_accept
    def post(self, request: Request, challenge_id: int) -> Response:
        body = ChallengeAcceptSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return answer(request, services.challenge_accept(challenge_id=challenge_id, player=request.user,
                                                         code=body.validated_data.get("code")))


class ChallengeDeclineView(ChallengeAPIView):
    @schema.challenges_decline
    def post(self, request: Request, challenge_id: int) -> Response:
        body = ChallengeDeclineSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return answer(request, services.challenge_decline(challenge_id=challenge_id, player=request.user,
                                                          reason=body.validated_data["reason"]))


class ChallengeCancelView(ChallengeAPIView):
    @schema.challenges_cancel
    def post(self, request: Request, challenge_id: int) -> Response:
        return answer(request, services.challenge_cancel(challenge_id=challenge_id, player=request.user))


class BotUpgradeView(APIView):
    @schema.bot_upgrade
    def post(self, request: Request) -> Response:
        body = BotUpgradeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        bot = bots.bot_upgrade(player=request.user, rulesets=body.validated_data.get("rulesets"))
        return Response(bots.bot_view(bot))
