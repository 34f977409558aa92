"""The tournaments API's recurring schedules (staff): their serializers and views. What a schedule's
fields must be is checked by tournaments.schedules.schedule_fields, which the admin calls too."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
)
from rest_framework import generics, permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.web.errors import ServiceError
from goat.web.fields import StrictSerializer
from goat.web.pagination import Pagination
from goat.web.problems import problem_example, problem_responses
from goat.web.schema import ID_SCHEMA, UNAUTHENTICATED

from .. import schedules
from ..access import IsStaff
from ..models import TournamentSchedule

# --- schedules (staff) -----------------------------------------------------------------------------


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
        fields = schedules.schedule_fields(body.validated_data)
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
        fields = schedules.schedule_fields(body.validated_data, schedule)
        if fields:
            schedule = schedules.schedule_update(schedule_id=schedule.pk, **fields)
        return Response(schedule_dict(schedule))
