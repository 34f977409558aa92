"""Each page makes a bounded number of queries whatever the data size (docs/site.md "Cost"): the
count with a little data and with more of everything is the same, and under a fixed ceiling."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db(transaction=True)

#: the most queries any page may make (session and user included)
CEILING = 16


def _queries(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200, path
    return len(captured)


def _pages(ann, game, tournament) -> list[str]:
    return ["/", f"/players/{ann.username}/", f"/players/{ann.username}/?page=2", f"/games/{game.pk}/",
            f"/games/{game.pk}/?step=3", f"/games/{game.pk}/?part=main", "/tournaments/",
            f"/tournaments/{tournament.pk}/", "/leaderboards/", "/leaderboards/?board=skill"]


def test_every_page_costs_the_same_queries_with_more_data(players, finished_game, tournament):
    ann, ben, cat, dan = players("ann", "ben", "cat", "dan")
    first = finished_game(ann, ben, seed=1)
    cup = tournament(name="Cup", players=[ann, ben, cat, dan])
    client = Client()
    pages = _pages(ann, first, cup)
    client.get("/")  # the session and the first-request work out of the way
    before = {path: _queries(client, path) for path in pages}

    more = players(*[f"p{i}" for i in range(6)])
    for i in range(22):  # more games than a page of the player's games, more players, more tournaments
        finished_game(ann, more[i % 6], seed=10 + i)
    for i in range(3):
        tournament(name=f"Cup {i}", players=more[2 * i:2 * i + 2])
    after = {path: _queries(client, path) for path in pages}

    assert after == before
    assert max(after.values()) <= CEILING, after
