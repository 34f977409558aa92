"""Per-address rate limits count the direct peer: a spoofed X-Forwarded-For lifts no limit, and a
configured trusted proxy passes the real client address (goat/web/api/throttling.py, issue 19 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from goat.web.api.throttling import client_ip

PASSWORD = "correct horse battery staple"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def low_rates(monkeypatch):
    """Three requests a minute in every scope, so a limit is reached in a few requests."""
    for scope in ("anon", "user", "auth", "signup", "moves"):
        monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, scope, "3/min")


def token(client: APIClient, **headers):
    return client.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json", **headers)


def signup(client: APIClient, name: str, **headers):
    return client.post("/api/players/", {"username": name, "password": PASSWORD}, format="json", **headers)


def anonymous_read(client: APIClient, **headers):
    return client.get("/api/schema/", **headers)


@pytest.mark.django_db
@pytest.mark.parametrize("call", ["token", "signup", "anonymous_read"])
def test_a_spoofed_forwarded_for_lifts_no_limit(call, low_rates, user):
    client = APIClient()
    statuses = []
    for i in range(5):
        spoof = {"HTTP_X_FORWARDED_FOR": f"7.7.{i}.1"}
        if call == "token":
            statuses.append(token(client, **spoof).status_code)
        elif call == "signup":
            statuses.append(signup(client, f"spoof{i}", **spoof).status_code)
        else:
            statuses.append(anonymous_read(client, **spoof).status_code)

    assert statuses[:3] == [201 if call == "signup" else 200] * 3
    assert statuses[3:] == [429, 429]


@pytest.mark.django_db
def test_a_trusted_proxy_passes_the_real_client_address(low_rates, user, settings):
    settings.GOAT_TRUSTED_PROXIES = ["127.0.0.1"]
    client = APIClient()  # REMOTE_ADDR 127.0.0.1: the proxy

    # four different clients behind the proxy: each has its own limit
    assert [token(client, HTTP_X_FORWARDED_FOR=f"7.7.{i}.1").status_code for i in range(4)] == [200] * 4
    # one client: limited after three, whatever it writes left of the address the proxy appended
    same = [token(client, HTTP_X_FORWARDED_FOR=f"9.9.{i}.9, 8.8.8.8").status_code for i in range(4)]
    assert same == [200, 200, 200, 429]


@pytest.mark.django_db
def test_a_peer_that_is_not_a_trusted_proxy_is_the_client(low_rates, user, settings):
    settings.GOAT_TRUSTED_PROXIES = ["10.0.0.0/8"]
    client = APIClient(REMOTE_ADDR="192.0.2.7")

    statuses = [token(client, HTTP_X_FORWARDED_FOR=f"7.7.{i}.1").status_code for i in range(4)]

    assert statuses == [200, 200, 200, 429]


class FakeRequest:
    def __init__(self, peer: str, forwarded: str | None = None):
        self.META = {"REMOTE_ADDR": peer}
        if forwarded is not None:
            self.META["HTTP_X_FORWARDED_FOR"] = forwarded


@pytest.mark.parametrize("proxies,peer,forwarded,expected", [
    ([], "192.0.2.1", "7.7.7.7", "192.0.2.1"),
    (["10.0.0.1"], "192.0.2.1", "7.7.7.7", "192.0.2.1"),
    (["10.0.0.1"], "10.0.0.1", "7.7.7.7", "7.7.7.7"),
    (["10.0.0.1"], "10.0.0.1", "6.6.6.6, 7.7.7.7", "7.7.7.7"),
    (["10.0.0.0/8"], "10.0.0.1", "7.7.7.7, 10.0.0.2", "7.7.7.7"),
    (["10.0.0.0/8"], "10.0.0.1", "10.0.0.3, 10.0.0.2", "10.0.0.3"),
    (["10.0.0.1"], "10.0.0.1", "", "10.0.0.1"),
    (["10.0.0.1"], "10.0.0.1", None, "10.0.0.1"),
    (["10.0.0.1"], "10.0.0.1", "not-an-address", "10.0.0.1"),
    (["10.0.0.1"], "10.0.0.1", "7.7.7.7, garbage", "10.0.0.1"),
    (["::1"], "::1", "2001:db8::5", "2001:db8::5"),
])
def test_client_ip(settings, proxies, peer, forwarded, expected):
    settings.GOAT_TRUSTED_PROXIES = proxies

    assert client_ip(FakeRequest(peer, forwarded)) == expected


def test_a_trusted_proxy_that_is_not_an_address_fails_the_check(settings):
    settings.GOAT_TRUSTED_PROXIES = ["10.0.0.0/8", "proxy.internal"]

    with pytest.raises(SystemCheckError, match="goat.E001"):
        call_command("check")


def test_compose_trusts_only_its_own_network_where_nginx_is_gunicorns_one_client():
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    services = compose["services"]

    assert "ports" not in services["web"] and services["proxy"]["ports"]  # clients reach nginx, never gunicorn
    subnet = compose["networks"]["default"]["ipam"]["config"][0]["subnet"]
    for name in ("web", "worker", "beat"):
        trusted = services[name]["environment"]["GOAT_TRUSTED_PROXIES"]
        assert trusted.startswith("${GOAT_TRUSTED_PROXIES:-") and trusted[len("${GOAT_TRUSTED_PROXIES:-"):-1] in subnet


@pytest.mark.django_db
def test_public_reads_are_under_the_anonymous_rate_and_a_login_lifts_it(low_rates, user):
    """Anonymous GETs of the public API (docs/api.md "Anonymous reads") count per address at the
    ``anon`` rate; a logged-in reader has the ``user`` rate instead."""
    anonymous = APIClient()
    assert [anonymous.get("/api/leaderboards/ratings/").status_code for _ in range(4)] == [200, 200, 200, 429]
    refused = anonymous.get("/api/tournaments/")
    assert refused.json()["code"] == "throttled" and int(refused["Retry-After"]) >= 1
    logged_in = APIClient()
    logged_in.force_authenticate(user)
    assert logged_in.get("/api/tournaments/").status_code == 200


@pytest.mark.django_db
def test_a_requests_throttles_count_in_one_step_of_the_store(user, monkeypatch):
    """A token request runs three throttles (anon, user and the auth scope, each per address): their
    hits go to the rate store together, in one call (one round trip to Redis), none on its own."""
    from goat.web.api import throttling

    calls = []
    counted = throttling.rate_hits
    monkeypatch.setattr(throttling, "rate_hits", lambda asks: calls.append(list(asks)) or counted(asks))
    monkeypatch.setattr(throttling, "rate_hit", lambda *args, **kwargs: pytest.fail("a throttle counted alone"))

    assert token(APIClient()).status_code == 200

    assert len(calls) == 1
    assert sorted(key.split("_")[1] for key, _limit, _window in calls[0]) == ["anon", "auth", "user"]


@pytest.mark.django_db
def test_each_throttle_of_a_request_counts_on_its_own_as_drf_loops_over_them(user, monkeypatch):
    """Counted together, the throttles keep DRF's rule: each counts the request when it is under its
    own limit, whether or not another refuses it. The third token request is over the auth scope's
    2 a minute (429) and still counts at the address's user rate (5 a minute): two more reads, then 429."""
    for scope, rate in (("anon", "100/min"), ("user", "5/min"), ("auth", "2/min")):
        monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, scope, rate)
    client = APIClient()

    assert [token(client).status_code for _ in range(3)] == [200, 200, 429]
    assert [anonymous_read(client).status_code for _ in range(3)] == [200, 200, 429]
