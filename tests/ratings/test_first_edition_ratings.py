"""Ratings recorded for a first-edition game are not rewritten (issue 20, docs/rules.md §2 and D-8).

The game is the golden first-edition log ``gamesburg-3-remembered``: goat-gamesburg as the first
edition played it, where seat 0 never opens and its 10 remembered points count. Read by today's
goat-gamesburg (``remembered_counts: false``) its rating points would be ``[10, 10, 0]``; they were
``[9, 10, 0]``, correct under the rules the game was played by, and ``rebuild_ratings`` reproduces
exactly those.
"""

from __future__ import annotations

import copy
from io import StringIO

import pytest
from django.core.management import call_command
from golden_games import golden_log, record_logged_game

from goat import engine
from goat.games import eventstore
from ratings.models import ChipAccount, ChipLedgerEntry, RatingEntry

pytestmark = pytest.mark.django_db

NAME = "gamesburg-3-remembered"


def _rows():
    return {
        "ledger": list(RatingEntry.objects.order_by("player__username").values_list(
            "player__username", "seat", "points", "reason", "goat")),
        "chips": list(ChipLedgerEntry.objects.exclude(kind="initial").order_by("player__username", "kind")
                      .values_list("player__username", "kind", "amount")),
        "balances": list(ChipAccount.objects.order_by("player__username").values_list("player__username", "balance")),
    }


def test_the_log_is_a_first_edition_game_whose_ratings_the_new_reading_would_change():
    log = golden_log(NAME)
    options = log[0]["data"]["options"]
    assert "remembered_counts" not in options and options["opener"] == "doubles_from_one"
    assert engine.verify_log(log)["result"]["rating_points"] == [9, 10, 0]
    today = copy.deepcopy(log)
    today[0]["data"]["options"]["remembered_counts"] = False  # today's goat-gamesburg
    assert engine.verify_log(today)["result"]["rating_points"] == [10, 10, 0]


def test_rebuild_ratings_reproduces_the_first_edition_ratings_exactly(django_user_model):
    game = record_logged_game(golden_log(NAME), django_user_model)
    recorded = _rows()
    assert [(seat, points) for _, seat, points, _, _ in sorted(recorded["ledger"], key=lambda r: r[1])] == [
        (0, 9), (1, 10), (2, 0)]
    assert game.result["rating_points"] == [9, 10, 0]
    call_command("rebuild_ratings", stdout=StringIO())
    assert _rows() == recorded
    # The stored game still verifies, by first-edition rules.
    events = [eventstore.event_dict(e) for e in eventstore.events_load(game_id=game.pk)]
    assert engine.verify_log(events)["result"]["rating_points"] == [9, 10, 0]
