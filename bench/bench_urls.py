"""goat's URLs plus three bench-only views of bench/http_load.py (their tables are created and dropped
by the bench):

* ``POST /bench/ping/``: a bare Django view doing one ORM INSERT into a tiny table (the baseline);
* ``POST /bench/floor/{head}/``: the database work a move cannot do without under docs/architecture.md,
  and nothing else: the token lookup (goat's own SQL text), then one transaction that locks a head row
  (``SELECT ... FOR UPDATE``) and writes an event row and the head's new version (one statement on
  PostgreSQL, as the move's append). No DRF, no engine, no snapshot, no countdown, no serializer;
* ``POST /bench/drf-floor/{head}/``: the same transaction inside DRF's request cycle as goat's API
  views run it: goat's token authentication, the default permission and throttle classes (the
  ``moves`` scope), content negotiation and JSON rendering.

The two floors say how much of a move's cost the prescribed design and the framework take before any
of goat's own work: docs/performance.md.
"""

from django.db import connection, models, transaction
from django.http import JsonResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.web.api.auth import token_query
from goat.web.db.fixed_sql import fetch, fixed_cursor


class BenchPing(models.Model):
    n = models.IntegerField()

    class Meta:
        app_label = "goat"
        db_table = "bench_http_ping"
        managed = False


class BenchHead(models.Model):
    version = models.IntegerField()

    class Meta:
        app_label = "goat"
        db_table = "bench_http_head"
        managed = False


@csrf_exempt
def ping(request):
    BenchPing.objects.create(n=1)
    return JsonResponse({"ok": True}, status=201)


def _locked_write(head: int) -> int:
    """Lock the head row, then write the event row and the head's next version; the new version.

    On PostgreSQL through goat's cursor for fixed SQL texts (prepared, as a move's statements are)."""
    if connection.vendor == "postgresql":
        with fixed_cursor() as cursor:
            cursor.execute("SELECT version FROM bench_http_head WHERE id = %s FOR UPDATE", [head], prepare=True)
            (version,) = cursor.fetchone()
            cursor.execute("WITH head AS (UPDATE bench_http_head SET version = version + 1 WHERE id = %s AND "
                           "version = %s RETURNING version) INSERT INTO bench_http_ping (n) SELECT version FROM head "
                           "RETURNING n", [head, version], prepare=True)
            return cursor.fetchone()[0]
    # SQLite: no row locks (the transaction holds the database's write lock) and no writing CTEs
    with connection.cursor() as cursor:
        cursor.execute("SELECT version FROM bench_http_head WHERE id = %s", [head])
        (version,) = cursor.fetchone()
        cursor.execute("UPDATE bench_http_head SET version = version + 1 WHERE id = %s AND version = %s",
                       [head, version])
        cursor.execute("INSERT INTO bench_http_ping (n) VALUES (%s)", [version + 1])
    return version + 1


def _token_known(key: str) -> bool:
    """goat.auth's token lookup, without building the models."""
    return bool(fetch(token_query(), [key]))


@csrf_exempt
def floor(request, head):
    if not _token_known(request.headers.get("Authorization", "").removeprefix("Token ")):
        return JsonResponse({"code": "authentication_failed"}, status=401)
    with transaction.atomic():
        version = _locked_write(head)
    return JsonResponse({"version": version}, status=201)


class DRFFloor(APIView):
    throttle_scope = "moves"

    def post(self, request, head):
        with transaction.atomic():
            version = _locked_write(head)
        return Response({"version": version}, status=201)


urlpatterns = [
    path("bench/ping/", ping),
    path("bench/floor/<int:head>/", floor),
    path("bench/drf-floor/<int:head>/", DRFFloor.as_view()),
    path("", include("goat.urls")),
]
handler404 = "goat.web.api.problems.handler404"
handler500 = "goat.web.api.problems.handler500"
