"""The tournaments API's recurring schedules (staff): their serializers and views. What a schedule's
fields must be is checked by tournaments.schedules.schedule_fields, which the admin calls too."""

from __future__ import annotations

from typing import Any

from rest_framework import generics, permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.web.api.pagination import Pagination
from goat.web.errors import WebError

from .. import schedules
from ..access import IsStaff
from ..models import TournamentSchedule
from . import schema
from .serializers import ScheduleCreateSerializer, ScheduleSerializer, ScheduleUpdateSerializer

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

    @schema.tournament_schedules_list
    def get(self, request: Request, *args, **kwargs) -> Response:
        return self.list(request, *args, **kwargs)

    @schema.tournament_schedules_create
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
            raise WebError.NOT_FOUND(schedules.NO_SCHEDULE)
        return schedule

    @schema.tournament_schedules_retrieve
    def get(self, request: Request, schedule_id: int) -> Response:
        return Response(schedule_dict(self._get(schedule_id)))

    @schema.tournament_schedules_update
    def patch(self, request: Request, schedule_id: int) -> Response:
        schedule = self._get(schedule_id)
        body = ScheduleUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        fields = schedules.schedule_fields(body.validated_data, schedule)
        if fields:
            schedule = schedules.schedule_update(schedule_id=schedule.pk, **fields)
        return Response(schedule_dict(schedule))
