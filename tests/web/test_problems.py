"""Every API error is an RFC 9457 problem (application/problem+json), never HTML."""

from __future__ import annotations

import pytest
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from apitest import PROBLEM, assert_problem
from goat.engine.errors import IllegalMove, InvalidOptions
from goat.urls import urlpatterns as goat_urlpatterns
from goat.web.errors import ServiceError

PASSWORD = "correct horse battery staple"


class Raising(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []
    exc: Exception = RuntimeError("not configured")

    def get(self, request):
        raise self.exc


class Fine(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_scope = "signup"

    def get(self, request):
        return Response({"ok": True})


def crash(request):
    raise RuntimeError("boom")


urlpatterns = [
    path("api/test/service/", Raising.as_view(exc=ServiceError("not_seated", "You have no seat.", status=403))),
    path(
        "api/test/service-headers/",
        Raising.as_view(exc=ServiceError("version_mismatch", "Stale.", status=412, headers={"ETag": '"7"'})),
    ),
    path("api/test/rules/", Raising.as_view(exc=IllegalMove("tile_does_not_fit", "3-5 does not fit."))),
    path("api/test/options/", Raising.as_view(exc=InvalidOptions(detail="hand_size * seats > 28"))),
    path("api/test/crash/", Raising.as_view(exc=RuntimeError("boom"))),
    path("api/test/plain-crash/", crash),
    path("api/test/fine/", Fine.as_view()),
    *goat_urlpatterns,
]


@pytest.fixture
def test_urls(settings):
    settings.ROOT_URLCONF = __name__


def test_malformed_json_body_is_400(api_client, db):
    response = api_client.post("/api/players/", data='{"username": ', content_type="application/json")

    assert_problem(response, 400, "malformed_json")


def test_unsupported_media_type_is_415(api_client, db):
    response = api_client.post("/api/players/", data="username=bob", content_type="application/x-www-form-urlencoded")

    assert_problem(response, 415, "unsupported_media_type")


def test_unknown_api_url_is_a_problem_404(api_client):
    body = assert_problem(api_client.get("/api/no/such/thing/"), 404, "not_found")

    assert body["type"] == "https://goat.example/problems/not_found"


def test_unknown_api_url_is_a_problem_404_even_in_debug(api_client, settings):
    settings.DEBUG = True

    assert_problem(api_client.get("/api/nope/"), 404, "not_found")


def test_method_not_allowed_is_405(auth_client):
    response = auth_client.delete("/api/players/me/")

    assert_problem(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]


def test_throttled_is_429_with_retry_after(api_client, monkeypatch, db):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "auth", "2/min")
    credentials = {"username": "nobody", "password": PASSWORD}
    statuses = [api_client.post("/api/auth/token/", credentials, format="json").status_code for _ in range(2)]

    response = api_client.post("/api/auth/token/", credentials, format="json")

    assert statuses == [400, 400]
    assert_problem(response, 429, "throttled")
    assert int(response["Retry-After"]) > 0


def test_service_error_is_rendered_with_its_code_and_status(api_client, test_urls):
    body = assert_problem(api_client.get("/api/test/service/"), 403, "not_seated")

    assert body["detail"] == "You have no seat."
    assert body["title"] == "Not seated"


def test_service_error_keeps_its_headers(api_client, test_urls):
    response = api_client.get("/api/test/service-headers/")

    assert_problem(response, 412, "version_mismatch")
    assert response["ETag"] == '"7"'


def test_rules_error_is_422_with_the_engine_code(api_client, test_urls):
    body = assert_problem(api_client.get("/api/test/rules/"), 422, "tile_does_not_fit")

    assert body["detail"] == "3-5 does not fit."


def test_invalid_options_is_400(api_client, test_urls):
    assert_problem(api_client.get("/api/test/options/"), 400, "invalid_options")


def test_unexpected_exception_in_a_drf_view_is_a_problem_500(api_client, test_urls):
    api_client.raise_request_exception = False

    body = assert_problem(api_client.get("/api/test/crash/"), 500, "server_error")

    assert "boom" not in body["detail"]


def test_unexpected_exception_in_a_plain_view_is_a_problem_500(api_client, test_urls):
    api_client.raise_request_exception = False

    assert_problem(api_client.get("/api/test/plain-crash/"), 500, "server_error")


def test_unknown_non_api_url_is_not_a_problem(client, db):
    response = client.get("/no/such/page/")

    assert response.status_code == 404
    assert response["Content-Type"] != PROBLEM
