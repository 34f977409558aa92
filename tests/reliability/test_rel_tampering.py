"""Tampering with stored games, and what finds it.

Covered elsewhere (referenced, not repeated):
- PostgreSQL refuses raw UPDATE and DELETE on events:
  tests/games/test_eventstore.py::test_the_database_refuses_raw_update_and_delete_on_postgresql
- an altered tile_played (trigger disabled) breaks the hash chain for ``game_verify``:
  tests/games/test_eventstore.py::test_the_hash_chain_detects_an_altered_event
- the nightly task flags a game with an altered event:
  tests/games/test_admin_audit.py::test_nightly_task_flags_a_game_whose_event_was_altered

Added here, each checked by ``goat.games.verification.game_verify`` and by the nightly job
(``goat.audit_tasks.games_verify_recent``): a deleted event (a gap), a rewritten deal whose hash
chain the tamperer recomputed (only the seeds can tell), and a changed result on the game row.
"""

from __future__ import annotations

import json

import factories
import pytest
from django.db import connection, transaction

from goat.games import eventstore, verification
from goat.games.audit_tasks import games_verify_recent
from goat.games.models import Game, GameEvent

pytestmark = pytest.mark.django_db(transaction=True)


def finished_game(users, seed: int) -> Game:
    return factories.finished_game(users[:2], options={"limit": 31}, seed=seed)


def behind_the_trigger(*statements: tuple[str, list]) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE goat_gameevent DISABLE TRIGGER goat_gameevent_append_only")
        for sql, params in statements:
            cursor.execute(sql, params)
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE goat_gameevent ENABLE TRIGGER goat_gameevent_append_only")


@pytest.fixture
def pair(django_user_model):
    return [django_user_model.objects.create_user(username=n, password="pw-" * 4) for n in ("tam", "per")]


def nightly_flags(game: Game) -> str:
    outcome = games_verify_recent.delay().get()
    assert outcome["failed"] >= 1, outcome
    game.refresh_from_db()
    assert game.verification_ok is False
    return game.verification_detail


def test_a_deleted_event_is_a_gap_found_by_verify_and_the_nightly_job(pair):
    game = finished_game(pair, seed=1)
    assert verification.game_verify(game=game).ok
    victim = GameEvent.objects.filter(game=game, type="tile_played").order_by("seq")[3]
    behind_the_trigger(("DELETE FROM goat_gameevent WHERE position = %s", [victim.pk]))

    report = verification.game_verify(game=game)
    assert not report.ok and report.hash_chain is False and report.seq == victim.seq
    assert f"seq {victim.seq} is missing" in report.detail
    assert f"seq {victim.seq}" in nightly_flags(game)


def test_a_cut_off_tail_is_found_although_the_remaining_chain_is_whole(pair):
    """Deleting the last events leaves a sound chain: the game row's version and the seeds tell."""
    game = finished_game(pair, seed=4)
    tail = list(GameEvent.objects.filter(game=game).order_by("-seq").values_list("position", flat=True)[:2])
    behind_the_trigger(*[("DELETE FROM goat_gameevent WHERE position = %s", [pk]) for pk in tail])

    report = verification.game_verify(game=Game.objects.get(pk=game.pk))
    assert report.hash_chain is True and not report.ok, report
    nightly_flags(game)


def test_a_rewritten_deal_with_a_recomputed_chain_is_found_by_the_seeds(pair):
    """The tamperer swaps two tiles between the hands and rewrites every hash after them."""
    game = finished_game(pair, seed=2)
    events = list(GameEvent.objects.filter(game=game).order_by("seq"))
    dealt = next(e for e in events if e.type == "round_dealt" and not e.data["void"])
    data = json.loads(json.dumps(dealt.data))
    data["hands"][0][0], data["hands"][1][0] = data["hands"][1][0], data["hands"][0][0]
    updates, prev = [], eventstore.GENESIS_HASH
    for event in events:
        stored = eventstore.event_dict(event)
        if event.pk == dealt.pk:
            stored["data"] = data
        digest = eventstore.chain_hash(prev, stored)
        updates.append(("UPDATE goat_gameevent SET data = %s, prev_hash = %s, hash = %s WHERE position = %s",
                        [json.dumps(stored["data"]), prev, digest, event.pk]))
        prev = digest
    updates.append(("UPDATE goat_game SET last_hash = %s WHERE id = %s", [prev, game.pk]))
    behind_the_trigger(*updates)

    report = verification.game_verify(game=Game.objects.get(pk=game.pk))
    assert report.hash_chain is True  # the chain alone cannot tell...
    assert report.deals is False and report.seq == dealt.seq  # ...the seeds can
    assert f"seq {dealt.seq}" in nightly_flags(game)


def test_a_changed_result_on_the_game_row_is_found_by_the_replay(pair):
    game = finished_game(pair, seed=3)
    result = dict(game.result)
    result["goats"], result["winners"] = result["winners"], result["goats"]
    Game.objects.filter(pk=game.pk).update(result=result)

    report = verification.game_verify(game=Game.objects.get(pk=game.pk))
    assert report.hash_chain and report.deals and report.replay is False
    assert "result" in nightly_flags(game)
