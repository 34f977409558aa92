"""Structured logs: X-Request-ID in and out, request and game ids on log records, JSON lines."""

from __future__ import annotations

import json
import logging

import pytest

from goat.games import services
from goat.web.observe.logs import ContextFilter, JsonFormatter, game_id_var, request_id_from, request_id_var

pytestmark = pytest.mark.django_db


def test_a_sane_incoming_request_id_is_returned(api_client):
    response = api_client.get("/health/", HTTP_X_REQUEST_ID="edge-1234.abc")

    assert response["X-Request-ID"] == "edge-1234.abc"


@pytest.mark.parametrize("bad", ["", "has space", "x" * 129, "semi;colon", "ключ"])
def test_an_insane_request_id_is_replaced_by_a_uuid(bad):
    made = request_id_from(bad)

    assert made != bad and len(made) == 32 and int(made, 16) >= 0


def test_every_response_gets_a_request_id_even_an_error(api_client):
    response = api_client.get("/api/no-such-thing/")

    assert response.status_code == 404
    assert len(response["X-Request-ID"]) == 32


def test_service_log_records_carry_the_request_and_game_id(auth_client, django_user_model, caplog):
    game = auth_client.post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json").json()
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Keep()
    handler.addFilter(ContextFilter())
    logger = logging.getLogger("goat.games.services")
    logger.addHandler(handler)
    try:
        request_id_var.set("req-1")
        services._load(game["id"])  # what every command does first
        logger.info("about this game")
    finally:
        logger.removeHandler(handler)
        game_id_var.set(None)
        request_id_var.set(None)

    assert records and records[-1].game_id == game["id"] and records[-1].request_id == "req-1"


def test_json_formatter_writes_one_object_per_line_with_the_ids():
    record = logging.LogRecord("goat.games.services", logging.INFO, __file__, 1, "game %s moved", (7,), None)
    record.request_id, record.game_id, record.seat = "abc", 7, 1

    line = JsonFormatter().format(record)

    out = json.loads(line)
    assert "\n" not in line
    assert out["message"] == "game 7 moved" and out["level"] == "INFO" and out["logger"] == "goat.games.services"
    assert out["request_id"] == "abc" and out["game_id"] == 7 and out["seat"] == 1


def test_gunicorn_access_records_take_the_request_id_from_the_response_header():
    record = logging.LogRecord("gunicorn.access", logging.INFO, __file__, 1, "%(s)s",
                               ({"s": "200", "{x-request-id}o": "r-9"},), None)

    ContextFilter().filter(record)

    assert record.request_id == "r-9"


def test_djangos_error_log_after_the_middleware_still_names_the_request(api_client, caplog):
    caplog.set_level(logging.WARNING, logger="django.request")

    response = api_client.get("/api/players/me/", HTTP_X_REQUEST_ID="err-42")

    assert response.status_code == 401
    records = [r for r in caplog.records if r.name == "django.request"]
    assert records
    ContextFilter().filter(records[-1])
    assert records[-1].request_id == "err-42"
