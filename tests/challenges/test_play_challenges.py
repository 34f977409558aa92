"""The play page's challenges (play/_challenges.html): the form, the incoming list with its badge,
the player's own challenges with the link to share, a player page's "Challenge to a game"; both
languages."""

from __future__ import annotations

import pytest
from django.test import Client
from factories import make_players

from challenges import services

pytestmark = pytest.mark.django_db


def page_for(user, language="en", path="/play/"):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client.get(path).content.decode()


def test_the_play_page_lists_incoming_challenges_with_a_badge_and_mine_with_their_link():
    masha, petya, vasya = make_players("masha", "petya", "vasya")
    services.challenge_create(challenger=masha, opponents=["petya"], ruleset="goat-classic")
    services.challenge_create(challenger=vasya, opponents=["petya"], ruleset="domino-3rounds", rated=False)
    open_one = services.challenge_create(challenger=masha, opponents=[], ruleset="goat-classic", seats=3)
    html = page_for(petya)
    assert 'id="challenge-form"' in html and 'id="incoming-challenges"' in html
    assert '<span id="challenges-badge" class="badge running"  aria-label' in html and ">2</span>" in html
    assert html.count("data-accept=") == 2 and "from masha" in html and "from vasya" in html
    mine = page_for(masha)
    assert f'href="/play/c/{open_one.code}/"' in mine and "anyone with the link" in mine
    assert 'id="challenges-badge" class="badge running" hidden' in mine
    assert open_one.code not in html  # the link is the challenger's alone


def test_a_player_page_challenges_that_player_from_the_play_page_in_russian():
    masha, petya = make_players("masha", "petya")
    player = page_for(masha, "ru", "/players/petya/")
    assert "Вызвать на партию" in player and 'href="/play/?challenge=petya"' in player
    assert 'id="player-challenge"' not in page_for(masha, "ru", "/players/masha/")  # not oneself
    assert 'id="player-challenge"' not in Client().get("/players/petya/").content.decode()  # signed out
    html = page_for(masha, "ru", "/play/?challenge=petya")
    assert 'id="ch-opponents" name="opponents" autocomplete="off" autocapitalize="none" maxlength="500" ' \
           'value="petya"' in html
    assert "Вызовы вам" in html and "Вызовов, ждущих ответа, нет." in html and "Вызвать" in html


def test_a_table_offers_play_again_with_the_same_people_to_its_players_once_it_ended():
    from factories import FAST, finished_game, start_game

    masha, petya, vasya = make_players("masha", "petya", "vasya")
    ended = finished_game([masha, petya], options=FAST)
    html = page_for(masha, path=f"/play/{ended.pk}/")
    assert f'id="challenge-again" data-game="{ended.pk}">' in html  # shown
    assert 'id="challenge-again"' not in page_for(vasya, path=f"/play/{ended.pk}/")  # not at that table
    running = start_game([masha, vasya], options=FAST)
    assert f'id="challenge-again" data-game="{running.pk}" hidden>' in page_for(masha, path=f"/play/{running.pk}/")
    assert "Сыграть снова тем же составом" in page_for(petya, "ru", f"/play/{ended.pk}/")
