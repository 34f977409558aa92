"""The public site's pages (docs/site.md): what each shows, every name a link, bad input."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_home_page_shows_what_is_on_now(players, finished_game, tournament):
    ann, ben, cat, dan = players("ann", "ben", "cat", "dan")
    game = finished_game(ann, ben, seed=3)
    running = tournament(name="Running <b>cup</b>", players=[cat, dan])
    later = tournament(name="Later cup", start=False, starts_in=timedelta(days=2))

    page = Client().get("/")
    html = page.content.decode()
    assert page.status_code == 200
    assert f'href="/tournaments/{running.pk}/"' in html and f'href="/tournaments/{later.pk}/"' in html
    assert "Running &lt;b&gt;cup&lt;/b&gt;" in html and "<b>cup" not in html  # the name is escaped
    assert 'id="top"' in html and "ann" in html and "ben" in html  # the main board's top
    assert f"Game {game.pk}" in html  # the game that just finished
    assert 'id="play"' in html and 'http-equiv="refresh"' not in html


def test_an_unknown_address_is_a_404_page_of_the_site():
    page = Client().get("/no-such-page/")
    assert page.status_code == 404
    assert 'id="not-found"' in page.content.decode() and "site.css" in page.content.decode()
