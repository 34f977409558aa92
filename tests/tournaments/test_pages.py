"""Public pages (no login): /leaderboards/, /tournaments/, /tournaments/{id}/."""

from __future__ import annotations

import pytest
from django.test import Client

from goat.games.computer import stand_ins_play
from tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)


def test_pages_show_tournaments_standings_tables_and_leaderboards(bots, make_tournament):
    players = bots(4)
    tournament = make_tournament(name="Page swiss", table_size=2, rounds=1)
    make_tournament(name="Later swiss")
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    services.tournaments_start_due()
    client = Client()

    listing = client.get("/tournaments/")
    html = listing.content.decode()
    assert listing.status_code == 200 and 'name="viewport"' in html and "site.css" in html
    assert f'href="/tournaments/{tournament.pk}/"' in html and "Page swiss" in html
    assert "Later swiss" not in client.get("/tournaments/?status=running").content.decode()

    page = client.get(f"/tournaments/{tournament.pk}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="standings"' in html and all(p.username in html for p in players)
    assert "Round 1" in html and "▶" in html  # someone is to move
    assert 'http-equiv="refresh"' not in html  # live by the tournament stream, never by reloading
    assert 'href="/leaderboards/?ruleset=goat-classic"' in html

    stand_ins_play(until_done=True, seed=2)
    html = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "finished" in html

    for query in ("", "?period=week", "?ruleset=goat-classic", "?board=skill", "?board=skill&ruleset=goat-classic",
                  "?period=bogus&page=99"):
        board = client.get(f"/leaderboards/{query}")
        assert board.status_code == 200, query
        assert players[0].username in board.content.decode(), query
    assert client.get("/tournaments/999999/").status_code == 404
    assert client.get("/static/site/site.css").status_code == 200
