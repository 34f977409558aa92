"""Snapshots in the engine's versioned JSON form: written by every command, rebuilt from the events
when absent or of another format (never trusted). A database migrated as main had it (pickled
snapshots in a bytea column) keeps working: tests/games/test_older_databases.py."""

from __future__ import annotations

import json

import pytest

from goat import engine
from goat.engine.tiles import tile_str
from goat.games import eventstore, services
from goat.games.models import Game


@pytest.fixture
def duo(django_user_model):
    return [django_user_model.objects.create_user(username=n, password="x" * 12) for n in ("sann", "sben")]


def _running(duo) -> Game:
    game = services.game_create(player=duo[0], ruleset="goat-classic", seats=2).game
    services.game_join(game_id=game.pk, player=duo[1])
    return Game.objects.get(pk=game.pk)


def _move(game: Game, duo) -> Game:
    state = eventstore.state_load(game)
    tile, end = engine.legal_moves(state)[0]
    services.game_play_tile(game_id=game.pk, player=duo[state.turn], tile=tile_str(tile), end=end)
    return Game.objects.get(pk=game.pk)


@pytest.mark.django_db
def test_a_command_writes_the_engine_json_form(duo):
    game = _move(_running(duo), duo)
    assert isinstance(game.snapshot, str)
    assert json.loads(game.snapshot)["format"] == engine.FORMAT_VERSION
    assert game.snapshot_version == game.version
    assert eventstore.snapshot_load(game.snapshot) == eventstore.state_rebuild(game)


@pytest.mark.django_db
@pytest.mark.parametrize("damage", ["another format", "not JSON", "not a state", "empty"])
def test_a_snapshot_it_cannot_read_is_rebuilt_from_the_events_never_trusted(duo, damage):
    game = _move(_running(duo), duo)
    form = json.loads(game.snapshot)
    # a snapshot of another format version, with a fish pot the events never made: never read
    snapshot = {"another format": json.dumps({**form, "format": engine.FORMAT_VERSION + 1, "fish_pot": 999}),
                "not JSON": "\x80\x05goat-state-1:",
                "not a state": json.dumps({"format": engine.FORMAT_VERSION, "seats": "two"}),
                "empty": ""}[damage]
    Game.objects.filter(pk=game.pk).update(snapshot=snapshot)
    game = Game.objects.get(pk=game.pk)
    assert eventstore.snapshot_load(game.snapshot) is None
    state = eventstore.state_load(game)
    assert state == eventstore.state_rebuild(game) and state.fish_pot != 999
    game = _move(game, duo)  # the next command writes the current form again
    assert json.loads(game.snapshot)["format"] == engine.FORMAT_VERSION
