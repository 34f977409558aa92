"""The standby for public reads (goat/web/db/replica.py), without one: the router, the choice of side per
request, the fallbacks when a side is away, the settings and /health/'s keys. The real standby is in
tests/web/test_replica_run.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from django.db import OperationalError
from django.http import HttpResponse
from django.test import RequestFactory

from goat.web.api.problems import unavailable_response
from goat.web.db import replica

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Side:
    """What the view saw: where the ORM read (the router's answer) on each call."""

    def __init__(self, fail_on: set[str | None] = frozenset(), answer_503: bool = False):
        self.calls: list[str | None] = []
        self.fail_on = fail_on
        self.answer_503 = answer_503

    def view(self, request, *args, **kwargs):
        where = replica.ReplicaRouter().db_for_read(None)
        self.calls.append(where)
        if where in self.fail_on:
            if self.answer_503:
                return unavailable_response()
            raise OperationalError("connection refused")
        return HttpResponse(f"from {where or 'default'}")


@pytest.fixture
def standby_state(monkeypatch):
    """A standby that is configured; its state and the sides' reachability are set by each test."""
    state = {"standby": replica.Standby(reachable=True, lag_seconds=0.1, checked_at=time.monotonic()),
             "reachable": {"default": True, "replica": True}}
    monkeypatch.setattr(replica, "configured", lambda: True)
    monkeypatch.setattr(replica, "standby", lambda fresh=False: state["standby"])
    monkeypatch.setattr(replica, "reachable", lambda alias: state["reachable"][alias])
    return state


def _get(path="/leaderboards/", **extra):
    return RequestFactory().get(path, **extra)


def test_the_router_sends_reads_where_the_request_says_and_writes_and_migrations_to_the_primary():
    router = replica.ReplicaRouter()
    assert router.db_for_read(None) is None
    with replica.reads_from(replica.STANDBY):
        assert router.db_for_read(None) == "replica"
        assert router.db_for_write(None) == "default"
    with replica.reads_from(replica.STANDBY_ONLY):
        assert router.db_for_read(None) == "replica"
    assert router.db_for_read(None) is None
    assert router.allow_migrate("default", "goat") and not router.allow_migrate("replica", "goat")


def test_a_running_game_reads_the_primary_unless_the_primary_is_away():
    with replica.reads_from(replica.STANDBY):
        replica.read_primary()
        assert not replica.reading_replica()
    with replica.reads_from(replica.STANDBY_ONLY):
        replica.read_primary()
        assert replica.reading_replica()


def test_an_anonymous_public_read_is_answered_from_the_standby(standby_state):
    side = Side()
    response = replica.public_read(side.view)(_get())
    assert (response.content, side.calls) == (b"from replica", ["replica"])


@pytest.mark.parametrize("extra", [{"HTTP_AUTHORIZATION": "Token abc"}, {"HTTP_COOKIE": "sessionid=xyz"}],
                         ids=["token", "session"])
def test_a_signed_in_visitor_reads_the_primary(standby_state, extra):
    side = Side()
    assert replica.public_read(side.view)(_get(**extra)).content == b"from default"


def test_a_write_through_a_public_view_is_not_touched(standby_state):
    side = Side()
    replica.public_read(side.view)(RequestFactory().post("/api/games/"))
    assert side.calls == [None]


def test_a_standby_further_behind_than_the_bound_is_not_read(standby_state, settings):
    settings.GOAT_REPLICA_MAX_LAG_SECONDS = 2
    standby_state["standby"] = replica.Standby(reachable=True, lag_seconds=2.5, checked_at=time.monotonic())
    side = Side()
    assert replica.public_read(side.view)(_get()).content == b"from default"
    standby_state["standby"] = replica.Standby(reachable=True, lag_seconds=1.9, checked_at=time.monotonic())
    assert replica.public_read(side.view)(_get()).content == b"from replica"


@pytest.mark.parametrize("answer_503", [False, True], ids=["exception", "problem-503"])
def test_a_standby_that_goes_away_mid_request_is_answered_from_the_primary(standby_state, answer_503):
    standby_state["reachable"]["replica"] = False
    side = Side(fail_on={"replica"}, answer_503=answer_503)
    try:
        response = replica.public_read(side.view)(_get())
        assert (response.status_code, response.content, side.calls) == (200, b"from default", ["replica", None])
        assert replica._checked is not None and not replica._checked.reachable  # left out until a check finds it
    finally:
        replica.forget()


def test_with_the_primary_away_a_signed_in_visitor_and_a_running_game_are_answered_from_the_standby(
        standby_state):
    standby_state["reachable"]["default"] = False
    side = Side(fail_on={None})
    response = replica.public_read(side.view)(_get(HTTP_AUTHORIZATION="Token abc"))
    assert (response.content, side.calls) == (b"from replica", [None, "replica"])

    def running_game(request):  # goat.games.selectors.game_get on a running game
        replica.read_primary()
        return side.view(request)

    side.calls.clear()
    response = replica.public_read(running_game)(_get())
    assert (response.content, side.calls) == (b"from replica", [None, "replica"])


def test_with_both_sides_away_the_answer_is_the_503(standby_state):
    standby_state["reachable"] = {"default": False, "replica": False}
    standby_state["standby"] = replica.Standby(reachable=False, lag_seconds=None, checked_at=time.monotonic())
    side = Side(fail_on={None, "replica"})
    with pytest.raises(OperationalError):
        replica.public_read(side.view)(_get())
    assert side.calls == [None]


def test_an_error_that_is_not_an_outage_is_not_retried(standby_state):
    side = Side()

    def broken(request):
        side.calls.append(replica.ReplicaRouter().db_for_read(None))
        raise ValueError("a bug")

    with pytest.raises(ValueError):
        replica.public_read(broken)(_get())
    assert side.calls == ["replica"]


def test_without_a_standby_a_public_view_is_the_view(monkeypatch):
    side = Side()
    assert not replica.configured()
    assert replica.public_read(side.view)(_get()).content == b"from default"


def test_the_public_views_are_marked_and_the_player_s_own_are_not():
    from django.urls import resolve

    for path in ("/", "/leaderboards/", "/tournaments/", "/tournaments/1/", "/games/1/", "/players/x/",
                 "/api/games/", "/api/games/1/", "/api/games/1/events/", "/api/leaderboards/ratings/",
                 "/api/players/x/", "/api/tournaments/1/standings/"):
        assert getattr(resolve(path).func, "public_read", False), path
    for path in ("/play/", "/api/players/me/", "/api/games/1/moves/", "/api/players/me/games/", "/health/",
                 "/api/games/1/stream/"):
        assert not getattr(resolve(path).func, "public_read", False), path


def _settings_of(**env: str) -> dict:
    code = ("import json, goat.settings as s; print(json.dumps({'dbs': s.DATABASES, "
            "'routers': getattr(s, 'DATABASE_ROUTERS', [])}, default=str))")
    environ = {**os.environ, "CELERY_BROKER_URL": "filesystem://", "SECRET_KEY": "k", **env}
    environ.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True,
                          timeout=60, check=True)
    return json.loads(done.stdout)


def test_the_replica_url_adds_a_second_database_and_the_router():
    plain = _settings_of(DATABASE_URL="postgres://u@db:5432/goat", DATABASE_REPLICA_URL="")
    assert list(plain["dbs"]) == ["default"] and plain["routers"] == []
    both = _settings_of(DATABASE_URL="postgres://u@db:5432/goat", DATABASE_REPLICA_URL="postgres://u@standby:5432/goat")
    standby = both["dbs"]["replica"]
    assert (standby["HOST"], standby["NAME"], standby["TEST"]) == ("standby", "goat", {"MIRROR": "default"})
    assert standby["OPTIONS"]["connect_timeout"] == 2
    assert both["routers"] == ["goat.web.db.replica.ReplicaRouter"]


def test_pgbouncer_mode_turns_off_server_side_cursors_and_prepared_statements():
    plain = _settings_of(DATABASE_URL="postgres://u@db:5432/goat")["dbs"]["default"]
    assert plain["OPTIONS"]["prepare_threshold"] == 5 and not plain.get("DISABLE_SERVER_SIDE_CURSORS")
    pooled = _settings_of(DATABASE_URL="postgres://u@db:6432/goat", DATABASE_POOLER="pgbouncer")["dbs"]["default"]
    assert pooled["OPTIONS"]["prepare_threshold"] is None and pooled["DISABLE_SERVER_SIDE_CURSORS"] is True
    asked = _settings_of(DATABASE_URL="postgres://u@db:6432/goat", DATABASE_POOLER="pgbouncer",
                         DB_PREPARED_STATEMENTS="1")["dbs"]["default"]
    assert asked["OPTIONS"]["prepare_threshold"] == 5  # PgBouncer 1.22+ with max_prepared_statements


@pytest.mark.django_db
def test_health_keeps_its_keys_without_a_standby(api_client):
    body = api_client.get("/health/").json()
    assert set(body) == {"status", "database", "broker"}


@pytest.mark.django_db
def test_health_reports_both_sides_and_answers_while_either_does(api_client, monkeypatch):
    from goat.web.observe import health

    monkeypatch.setattr(replica, "configured", lambda: True)
    monkeypatch.setattr(health, "broker_ok", lambda: True)
    for primary, standby, status, state in ((True, (True, 0.2), 200, "ok"), (True, (False, None), 200, "degraded"),
                                            (False, (True, 0.0), 200, "degraded"),
                                            (False, (False, None), 503, "degraded")):
        monkeypatch.setattr(health, "database_ok", lambda primary=primary: primary)
        monkeypatch.setattr(replica, "standby", lambda fresh=False, s=standby: replica.Standby(
            reachable=s[0], lag_seconds=s[1], checked_at=time.monotonic()))
        response = api_client.get("/health/")
        assert response.status_code == status
        assert response.json() == {"status": state, "database": primary, "broker": True, "replica": standby[0],
                                   "replica_lag_seconds": standby[1]}


def test_the_lag_is_measured_at_most_once_per_check_interval(monkeypatch, settings):
    measured = []

    def measure():
        measured.append(1)
        return replica.Standby(reachable=True, lag_seconds=0.0, checked_at=time.monotonic())

    monkeypatch.setattr(replica, "_measure", measure)
    replica.forget()
    try:
        settings.GOAT_REPLICA_CHECK_SECONDS = 60
        for _ in range(5):
            assert replica.standby().usable
        assert len(measured) == 1
        replica.standby(fresh=True)  # /health/, and a failure that must know now
        assert len(measured) == 2
        settings.GOAT_REPLICA_CHECK_SECONDS = 0
        replica.standby()
        assert len(measured) == 3
        # one found unreachable is tried again after a few seconds, not at every request
        monkeypatch.setattr(replica, "_measure", lambda: measured.append(1) or replica.Standby(
            reachable=False, lag_seconds=None, checked_at=time.monotonic()))
        replica.standby(fresh=True)
        for _ in range(5):
            assert not replica.standby().usable
        assert len(measured) == 4
    finally:
        replica.forget()


@pytest.mark.django_db
def test_a_game_the_standby_shows_running_or_lacks_is_read_on_the_primary():
    from factories import make_players, start_game

    from goat.games import selectors, services
    from goat.web.errors import ServiceError

    players = make_players("rep-a", "rep-b")
    game = start_game(players)
    with replica.reads_from(replica.STANDBY):
        assert selectors.game_get(game_id=game.pk).pk == game.pk
        assert not replica.reading_replica()  # running: this request goes on on the primary
    services.game_resign(game_id=game.pk, player=players[0])
    with replica.reads_from(replica.STANDBY):
        assert selectors.game_get(game_id=game.pk).ended
        assert replica.reading_replica()  # ended: the standby's copy is the primary's
    with replica.reads_from(replica.STANDBY):
        with pytest.raises(ServiceError):
            selectors.game_get(game_id=game.pk + 1000)
        assert not replica.reading_replica()  # not there (yet): asked of the primary too
