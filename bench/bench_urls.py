"""goat's URLs plus ``POST /bench/ping/``: a bare Django view doing one ORM INSERT into a tiny table
(the baseline of bench/http_load.py; its table is created and dropped by the bench)."""

from django.db import models
from django.http import JsonResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt


class BenchPing(models.Model):
    n = models.IntegerField()

    class Meta:
        app_label = "goat"
        db_table = "bench_http_ping"
        managed = False


@csrf_exempt
def ping(request):
    BenchPing.objects.create(n=1)
    return JsonResponse({"ok": True}, status=201)


urlpatterns = [path("bench/ping/", ping), path("", include("goat.urls"))]
handler404 = "goat.problems.handler404"
handler500 = "goat.problems.handler500"
