"""The HTTP side of the metrics: the request counter/histogram middleware and the ``/metrics`` view."""

from __future__ import annotations

import time

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST

from goat.web.api.throttling import client_ip
from goat.web.observe import metrics

#: the route label of a request no URL pattern matched (a 404 of the resolver): one series, never the path
UNMATCHED = "<unmatched>"


def _route(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return UNMATCHED
    return "/" + match.route if match.route else UNMATCHED


class MetricsMiddleware:
    """Count every answered request by URL pattern (``/api/games/<int:game_id>/moves/``, never the
    raw path), method and status, and observe its latency. First in MIDDLEWARE: the time includes
    the other middlewares."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        route = _route(request)
        method = request.method if request.method in _METHODS else "other"
        key = (route, method, response.status_code)
        children = _children.get(key)
        if children is None:  # the labelled series, looked up once per (route, method, status)
            children = _children[key] = (metrics.HTTP_REQUESTS.labels(route, method, str(response.status_code)),
                                         metrics.HTTP_DURATION.labels(route, method))
        children[0].inc()
        children[1].observe(time.perf_counter() - started)
        return response


#: (route, method, status) -> (its requests counter, its latency histogram); bounded by the URL patterns
_children: dict[tuple[str, str, int], tuple] = {}


#: methods counted by name (any other is "other": a client cannot add series)
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def metrics_view(request: HttpRequest) -> HttpResponse:
    """``GET /metrics``: the Prometheus text format, for GOAT_METRICS_ALLOW addresses or the bearer of
    GOAT_METRICS_TOKEN; 404 for anyone else (the endpoint does not admit it exists)."""
    if not metrics.allowed(client=client_ip(request), authorization=request.headers.get("Authorization", ""),
                           allow=settings.GOAT_METRICS_ALLOW, token=settings.GOAT_METRICS_TOKEN):
        raise Http404()
    if request.method not in ("GET", "HEAD"):
        return HttpResponse(status=405, headers={"Allow": "GET, HEAD"})
    return HttpResponse(metrics.exposition(), content_type=CONTENT_TYPE_LATEST,
                        headers={"Cache-Control": "no-store"})
