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


def test_the_player_page_shows_ratings_a_chart_and_games_with_links(players, finished_game):
    ann, ben = players("ann", "ben")
    games = [finished_game(ann, ben, seed=s) for s in (1, 2)]
    page = Client().get("/players/ann/")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="player-name"' in html and 'id="rulesets"' in html and "goat-classic" in html
    assert 'class="rating-chart"' in html and "<polyline" in html  # drawn on the server
    for game in games:
        assert f'href="/games/{game.pk}/"' in html
    assert 'href="/players/ben/"' in html  # the opponent is a link
    assert Client().get("/players/ANN/").status_code == 200  # names are compared in their normal form


def test_a_finished_games_page_has_the_replay_and_the_fairness_panel(players, finished_game):
    ann, ben = players("ann", "ben")
    game = finished_game(ann, ben, seed=4)
    client = Client()
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="replay"' in html and 'id="fairness"' in html and 'id="scoresheet"' in html
    assert game.server_seed_commitment in html and game.server_seed in html
    assert f"python -m goat.engine verify game-{game.pk}.json" in html
    assert 'id="verification" class="ok"' in html
    assert 'href="/players/ann/"' in html and 'href="/players/ben/"' in html
    step2 = client.get(f"/games/{game.pk}/?step=2").content.decode()
    assert 'id="replay-step">2<' in step2
    download = client.get(f"/games/{game.pk}/events.json")
    assert download.status_code == 200 and download["Content-Disposition"].endswith(f'game-{game.pk}.json"')
