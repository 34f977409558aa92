"""The public pages are rate-limited per client address (issue 56 item 4; goat.web.api.throttling.page_limited):
generous for people, a 429 page with Retry-After for a reader at machine speed; the API and the play page
have their own rates."""

from __future__ import annotations

import pytest
from django.test import Client
from factories import make_players
from rest_framework.throttling import SimpleRateThrottle

pytestmark = pytest.mark.django_db


@pytest.fixture
def pages_rate(monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "pages", "5/min")


@pytest.mark.parametrize("path", ["/", "/players/alice/", "/leaderboards/", "/tournaments/", "/rules/"])
def test_a_reader_past_the_rate_gets_a_429_page_with_retry_after(pages_rate, path):
    make_players("alice")
    client = Client(REMOTE_ADDR="192.0.2.1")
    statuses = [client.get(path).status_code for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    refused = client.get(path, HTTP_ACCEPT_LANGUAGE="ru")
    assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= 60
    assert "Подождите" in refused.content.decode()
    assert Client(REMOTE_ADDR="198.51.100.7").get(path).status_code == 200  # another address


def test_signing_in_does_not_escape_the_pages_rate(pages_rate):
    (alice,) = make_players("alice")
    client = Client(REMOTE_ADDR="192.0.2.1")
    client.force_login(alice)
    assert [client.get("/players/alice/").status_code for _ in range(6)] == [200] * 5 + [429]


def test_the_api_and_the_play_page_are_not_counted_as_pages(pages_rate):
    client = Client(REMOTE_ADDR="192.0.2.1")
    for _ in range(8):
        assert client.get("/api/games/").status_code == 200
        assert client.get("/play/").status_code == 200
    assert client.get("/").status_code == 200
