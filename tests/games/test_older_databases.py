"""An older database migrates on without loss. One walk goes back through the migrations to the
earliest schema a check plants data in, stops at each later schema to plant what it held, and goes
forward to the leaf again; then every planted thing is checked. (Unapplying and reapplying the
migrations is what these checks spend, so they share one walk.)

- The earlier layout (goat 0004, before the web app): the idempotency records lived in goat; they
  move to web with their rows.
- Main as it was before the snapshot's JSON form (goat 0007): a snapshot was a pickle in a bytea/blob
  column; it is dropped, never read, and the state comes from the events.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from factories import make_players, play, start_game

from goat import engine
from goat.games import eventstore
from goat.games.models import Game

EARLIER_LAYOUT = [("goat", "0004_drop_redundant_indexes"), ("web", None)]
#: the last migrations before the snapshot's JSON form (goat 0007)
MAIN = [("goat", "0005_idempotencyrecord_moves_to_web"), ("ratings", "0003_leaderboard_ranks"),
        ("tournaments", "0001_tournaments"), ("web", "0001_idempotencyrecord_from_goat")]


def _plant_in_the_earlier_layout(executor: MigrationExecutor) -> int:
    old = executor.loader.project_state(EARLIER_LAYOUT[:1]).apps
    assert ("web", "idempotencyrecord") not in {(m._meta.app_label, m._meta.model_name) for m in old.get_models()}
    user = old.get_model("auth", "User").objects.create(username="earlier-layout", password="!")
    game = old.get_model("goat", "Game").objects.create(
        ruleset="goat-classic", seats=2, options={}, status="waiting", server_seed="00" * 32,
        server_seed_commitment="11" * 32, created_by_id=user.pk,
    )
    old.get_model("goat", "IdempotencyRecord").objects.create(
        user_id=user.pk, key="k-1", fingerprint="f" * 64, status_code=201, content_type="application/json",
        body=b'{"id": 1}',
    )
    return game.pk


def _plant_in_main(executor: MigrationExecutor, game_id: int) -> None:
    # main's schema: the snapshot is a bytea/blob column holding a pickle behind a format prefix
    old = executor.loader.project_state(MAIN).apps.get_model("goat", "Game")
    assert old._meta.get_field("snapshot").get_internal_type() == "BinaryField"
    old.objects.filter(pk=game_id).update(snapshot=b"goat-state-1:\x80\x05\x95 pickled by main")


@pytest.mark.django_db(transaction=True)
def test_an_older_database_migrates_on_without_loss():
    duo = make_players("sann", "sben")
    game = play(start_game(duo), duo, max_moves=1)
    expected = eventstore.state_rebuild(game)

    executor = MigrationExecutor(connection)
    executor.migrate(EARLIER_LAYOUT)
    try:
        earlier_game = _plant_in_the_earlier_layout(executor)
        executor = MigrationExecutor(connection)
        executor.migrate(MAIN)
        _plant_in_main(executor, game.pk)
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())

    from goat.web.models import IdempotencyRecord

    record = IdempotencyRecord.objects.get(user__username="earlier-layout", key="k-1")
    assert (record.status_code, bytes(record.body), record.fingerprint) == (201, b'{"id": 1}', "f" * 64)
    assert Game.objects.get(pk=earlier_game).created_by.username == "earlier-layout"
    IdempotencyRecord.objects.create(user=record.user, key="k-2", fingerprint="e" * 64)  # the table takes new rows
    assert IdempotencyRecord.objects.filter(user=record.user).count() == 2

    game = Game.objects.get(pk=game.pk)
    assert game.snapshot is None  # the pickle is gone, not read: the state comes from the events
    assert eventstore.state_load(game) == expected
    game = play(game, duo, max_moves=1)
    assert json.loads(game.snapshot)["format"] == engine.FORMAT_VERSION
    assert eventstore.snapshot_load(game.snapshot) == eventstore.state_rebuild(game)
