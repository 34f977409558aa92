"""A feed that missed its tournament tables (its process's subscription was down) is owed them by
the tournaments app's catch-up (goat.games.notify.feed_catch_up, issue 31)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from goat.games import notify
from tournaments import services
from tournaments.models import Table

pytestmark = pytest.mark.django_db


def test_the_feed_catch_up_owes_the_tables_a_player_was_seated_at_since(bots, make_tournament):
    players = bots(4)
    tournament = make_tournament(rounds=1, table_size=4)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    since = timezone.now() - timedelta(seconds=1)
    services.tournaments_start_due()
    table = Table.objects.get(tournament=tournament)

    owed = [m for m in notify.feed_catch_up(user=players[0], since=since) if m["kind"] == "tournament_table"]

    assert owed == [{"kind": "tournament_table", "data": {"tournament": tournament.pk, "game": table.game_id}}]
    later = timezone.now() + timedelta(seconds=1)
    assert [m for m in notify.feed_catch_up(user=players[0], since=later) if m["kind"] == "tournament_table"] == []
