"""Concurrent submissions of the same move: exactly one wins per version, the rest get 412."""

from __future__ import annotations

import pytest
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from goat.engine.tiles import tile_str
from goat.games import eventstore, services
from goat.games.models import Game, GameEvent
from testkit import run_together

pytestmark = [pytest.mark.database]  # threads on their own connections: PostgreSQL's row locks

THREADS = 16


def token_header(user) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return f"Token {token.key}"


def assert_stream_sound(game_id: int) -> None:
    game = Game.objects.get(pk=game_id)
    events = list(GameEvent.objects.filter(game_id=game_id).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, game.version + 1))
    ok, seq, why = eventstore.hash_chain_check(events)
    assert ok, (seq, why)
    assert game.last_hash == events[-1].hash
    assert eventstore.state_rebuild(game).version == game.version


@pytest.fixture
def race_game(django_user_model):
    ann = django_user_model.objects.create_user(username="ann", password="x" * 12)
    ben = django_user_model.objects.create_user(username="ben", password="x" * 12)
    game = services.game_create(player=ann, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=game.pk, player=ben)
    state = eventstore.state_load(Game.objects.get(pk=game.pk))
    mover = (ann, ben)[state.turn]
    return game.pk, mover, state


@pytest.mark.django_db(transaction=True)
def test_sixteen_clients_submit_the_same_move_exactly_one_wins(race_game):
    game_id, mover, state = race_game
    header = token_header(mover)
    body = {"tile": tile_str(state.table.must_lead)}
    if_match = f'"{state.version}"'

    def submit(_i):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=header)
        response = client.post(f"/api/games/{game_id}/moves/", body, format="json", HTTP_IF_MATCH=if_match)
        return response.status_code, response.json().get("code")

    results = run_together(THREADS, submit)

    assert not [r for r in results if isinstance(r, BaseException)], results
    statuses = sorted(status for status, _code in results)
    assert statuses == [201] + [412] * (THREADS - 1), results
    assert {code for status, code in results if status == 412} == {"version_mismatch"}
    assert Game.objects.get(pk=game_id).version > state.version
    assert GameEvent.objects.filter(game_id=game_id, type="tile_played").count() == 1
    assert_stream_sound(game_id)


@pytest.mark.django_db(transaction=True)
def test_sixteen_service_calls_without_expected_version_play_once(race_game):
    """Without If-Match the lock still serialises: one plays the lead, the rest are refused by the rules."""
    game_id, mover, state = race_game
    tile = tile_str(state.table.must_lead)

    def submit(_i):
        try:
            services.game_play_tile(game_id=game_id, player=mover, tile=tile)
            return "played"
        except Exception as exc:  # noqa: BLE001
            return getattr(exc, "code", repr(exc))

    results = run_together(THREADS, submit)

    assert results.count("played") == 1, results
    assert set(results) - {"played"} <= {"not_your_turn", "tile_not_in_hand"}, results
    assert_stream_sound(game_id)
    assert connection.vendor in ("sqlite", "postgresql")


@pytest.mark.django_db(transaction=True)
def test_sixteen_lock_free_appends_at_one_version_exactly_one_lands(race_game):
    """The store's append checks the head in the statement that moves it: without the services' row
    lock, writers that all read the same head still get exactly one winner and a sound chain."""
    game_id, _mover, state = race_game
    batch = [{"type": "resigned", "seat": 0, "data": {"note": "race"}}]

    heads = [Game.objects.only("id", "version", "last_hash").get(pk=game_id) for _ in range(THREADS)]
    assert {h.version for h in heads} == {state.version}  # every writer read the same head

    def append(i):
        try:
            eventstore.events_append(game=heads[i], events=[{**batch[0], "data": {"writer": i}}])
            return "appended"
        except eventstore.StreamConflict as exc:
            return exc.code

    results = run_together(THREADS, append)

    assert results.count("appended") == 1, results
    assert set(results) == {"appended", "version_mismatch"}, results
    assert Game.objects.get(pk=game_id).version == state.version + 1
    events = list(GameEvent.objects.filter(game_id=game_id).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, state.version + 2))
    ok, seq, why = eventstore.hash_chain_check(events)
    assert ok, (seq, why)
