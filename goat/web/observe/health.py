"""``/health/``: is the database reachable, is the broker reachable.

Readiness, not liveness: 200 while the database answers, because that is all a game needs (reads,
moves, streams; with Redis down the throttles count per process, streams catch up when it returns
and the beat's tasks wait for it). ``broker: false`` (status ``degraded``) says that Redis is
away; 503 only when the database is. Any answer at all (200 or 503) means the process is alive:
restart on no answer, take out of the load balancer on 503 (docs/operations.md "Health").

With a standby (``DATABASE_REPLICA_URL``, goat.web.db.replica) the answer adds ``replica`` (does the
standby answer) and ``replica_lag_seconds`` (how far behind it is; null when it does not answer);
``database`` stays the primary. The public site answers while either side does, so the answer is
503 only when neither does; with the primary away it is 200 ``degraded``, ``database: false``.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from django.conf import settings
from django.db import connection
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.web.db import replica

logger = logging.getLogger(__name__)

BROKER_TIMEOUT_SECONDS = 2


def database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone()[0] == 1
    except Exception:  # noqa: BLE001 - any failure means "not reachable"
        logger.exception("health: database check failed")
        return False


def broker_ok() -> bool:
    url = settings.CELERY_BROKER_URL
    try:
        if url.startswith("filesystem://"):
            options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})
            folders = [options[key] for key in ("data_folder_in", "data_folder_out") if key in options]
            return all(Path(folder).is_dir() and os.access(folder, os.W_OK) for folder in folders)
        from kombu import Connection

        transport_options = {"socket_timeout": BROKER_TIMEOUT_SECONDS, "socket_connect_timeout": BROKER_TIMEOUT_SECONDS}
        with Connection(url, connect_timeout=BROKER_TIMEOUT_SECONDS, transport_options=transport_options) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=BROKER_TIMEOUT_SECONDS)
            conn.default_channel  # noqa: B018 - opening a channel pings redis
        return True
    except Exception:  # noqa: BLE001
        logger.exception("health: broker check failed")
        return False


def _fields() -> dict[str, serializers.Field]:
    return {
        "status": serializers.ChoiceField(choices=["ok", "degraded"]),
        "database": serializers.BooleanField(),
        "broker": serializers.BooleanField(),
        "replica": serializers.BooleanField(required=False, help_text="with DATABASE_REPLICA_URL only"),
        "replica_lag_seconds": serializers.FloatField(required=False, allow_null=True,
                                                      help_text="with DATABASE_REPLICA_URL only"),
    }


class HealthView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes: list = []

    @extend_schema(
        operation_id="health",
        summary="Database and broker reachability",
        description="200 while the database answers (a broker that is away shows as `broker: false`, "
                    "status `degraded`: games go on); 503 when the database does not. With a standby "
                    "(DATABASE_REPLICA_URL) `replica` and `replica_lag_seconds` say how it is, and the answer "
                    "is 503 only when neither the primary (`database`) nor the standby answers.",
        responses={
            (200, "application/json"): inline_serializer("Health", fields=_fields()),
            (503, "application/json"): inline_serializer("HealthDegraded", fields=_fields()),
        },
        examples=[
            OpenApiExample("ok", value={"status": "ok", "database": True, "broker": True}, status_codes=["200"]),
            OpenApiExample(
                "broker away", value={"status": "degraded", "database": True, "broker": False}, status_codes=["200"]
            ),
            OpenApiExample(
                "database away", value={"status": "degraded", "database": False, "broker": True},
                status_codes=["503"]
            ),
        ],
        tags=["operations"],
    )
    def get(self, request: Request) -> Response:
        database, broker = database_ok(), broker_ok()
        body: dict[str, object] = {"database": database, "broker": broker}
        answers = database
        if replica.configured():
            standby = replica.standby(fresh=True)
            body.update({"replica": standby.reachable, "replica_lag_seconds": standby.lag_seconds})
            answers = database or standby.reachable
            healthy = database and broker and standby.usable
        else:
            healthy = database and broker
        return Response({"status": "ok" if healthy else "degraded", **body}, status=200 if answers else 503)
