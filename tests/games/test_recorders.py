"""The event store's two recorders behind one interface (``write``: a batch with its head move), run
through one shared set of tests: ``StatementsRecorder`` (two statements in a transaction: the embedded
SQLite, in the fast tier) and ``PostgresRecorder`` (one CTE: the database tier, on PostgreSQL)."""

from __future__ import annotations

import pytest
from django.db import connection
from factories import make_players, start_game

from goat.games import eventstore
from goat.games.models import Game, GameEvent

pytestmark = pytest.mark.django_db


@pytest.fixture(params=[
    pytest.param(eventstore.StatementsRecorder, id="statements"),
    pytest.param(eventstore.PostgresRecorder, id="postgresql", marks=pytest.mark.database),
])
def recorder(request):
    if request.param is eventstore.PostgresRecorder and connection.vendor != "postgresql":
        pytest.skip("the PostgreSQL recorder needs PostgreSQL (the database tier)")
    return request.param()


@pytest.fixture
def game():
    return Game.objects.get(pk=start_game(make_players("ann", "ben")).pk)


def test_the_database_has_its_own_recorder():
    expected = eventstore.PostgresRecorder if connection.vendor == "postgresql" else eventstore.StatementsRecorder
    assert type(eventstore.recorder()) is expected


def test_a_batch_continues_the_chain_gap_free_and_moves_the_head(recorder, game):
    version = game.version
    game.round = 42  # a read-model column the command names
    events = [{"type": "resigned", "seat": 0, "data": {"n": i, "ё": "ж"}} for i in range(3)]

    stored = eventstore.events_append(game=game, events=events, update_fields=["round"], using=recorder)

    assert [e.seq for e in stored] == [version + 1, version + 2, version + 3]
    loaded = eventstore.events_load(game_id=game.pk)
    assert [e.seq for e in loaded] == list(range(1, version + 4))
    assert all(b.prev_hash == a.hash for a, b in zip(loaded, loaded[1:], strict=False))
    assert [e.data for e in loaded[-3:]] == [e["data"] for e in events]
    assert [e.position for e in stored] == sorted(e.position for e in stored)
    row = Game.objects.get(pk=game.pk)
    assert (row.version, row.last_hash, row.round) == (version + 3, stored[-1].hash, 42)


def test_a_stale_head_writes_nothing(recorder, game):
    stale = Game.objects.get(pk=game.pk)
    eventstore.events_append(game=game, events=[{"type": "resigned", "seat": 0, "data": {}}], using=recorder)
    before = list(GameEvent.objects.filter(game=game).values_list("seq", "hash"))

    with pytest.raises(eventstore.StreamConflict):
        eventstore.events_append(game=stale, events=[{"type": "resigned", "seat": 1, "data": {}}],
                                 update_fields=["round"], using=recorder)

    assert list(GameEvent.objects.filter(game=game).values_list("seq", "hash")) == before
    assert Game.objects.get(pk=game.pk).version == game.version
    assert stale.version == game.version - 1  # the caller's view is left as it read it


def test_an_empty_batch_moves_only_the_named_columns(recorder, game):
    version, last_hash = game.version, game.last_hash
    game.round = 7

    assert eventstore.events_append(game=game, events=[], update_fields=["round"], using=recorder) == []

    row = Game.objects.get(pk=game.pk)
    assert (row.version, row.last_hash, row.round) == (version, last_hash, 7)
    assert GameEvent.objects.filter(game=game).count() == version
