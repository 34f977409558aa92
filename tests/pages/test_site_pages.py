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


def test_the_player_page_lists_the_tournaments_played_with_their_place(players, tournament):
    ann, ben = players("ann", "ben")
    cup = tournament(name="Spring <i>cup</i>", players=[ann, ben])
    html = Client().get("/players/ann/").content.decode()
    assert 'id="tournaments"' in html and f'href="/tournaments/{cup.pk}/"' in html
    assert "Spring &lt;i&gt;cup&lt;/i&gt;" in html  # the name is escaped
    assert "<th>Турнир</th>" in Client().get("/players/ben/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "No tournaments yet." in Client().get("/players/director/").content.decode()


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


def test_the_tournament_page_links_every_name_and_game_and_follows_its_stream(players, tournament):
    ann, ben, cat, dan = players("ann", "ben", "cat", "dan")
    cup = tournament(name="Links cup", players=[ann, ben, cat, dan])
    client = Client()
    html = client.get(f"/tournaments/{cup.pk}/").content.decode()
    for name in ("ann", "ben", "cat", "dan"):
        assert f'href="/players/{name}/"' in html
    tables = cup.tables.select_related("game")
    assert tables.count() == 2 and all(f'href="/games/{t.game_id}/"' in html for t in tables)
    assert f'data-live-stream="/api/tournaments/{cup.pk}/stream/"' in html and "site/live.js" in html
    assert 'http-equiv="refresh"' not in html
    part = client.get(f"/tournaments/{cup.pk}/?part=main").content.decode()
    assert 'id="standings"' in part and "<html" not in part and "<header" not in part


def test_bad_input_is_a_404_page_never_a_server_error(players, finished_game, tournament):
    ann, ben = players("ann", "ben")
    game = finished_game(ann, ben, seed=5)
    client = Client()
    for path in ("/players/nobody/", "/games/999999/", "/games/abc/", "/games/99999999999999999999999/",
                 "/tournaments/999999/", "/tournaments/x1/", "/players/ann/?page=abc", "/players/ann/?page=0",
                 "/tournaments/?page=-1", "/leaderboards/?page=1e3", f"/games/{game.pk}/?step=abc",
                 f"/games/{game.pk}/?step={game.version + 1}", f"/games/{game.pk}/?step=-1"):
        page = client.get(path)
        assert page.status_code == 404, path
        assert 'id="not-found"' in page.content.decode(), path
    russian = client.get("/games/999999/", headers={"Accept-Language": "ru"}).content.decode()
    assert "Не найдено" in russian


def test_user_supplied_text_is_escaped(django_user_model, finished_game, tournament):
    odd = django_user_model.objects.create_user(username="<i>x</i>", password="x")
    ben = django_user_model.objects.create_user(username="ben", password="x")
    game = finished_game(odd, ben, seed=6)
    tournament(name='"><script>alert(1)</script>', players=[odd, ben])
    client = Client()
    for path in ("/", f"/games/{game.pk}/", "/tournaments/", "/leaderboards/"):
        html = client.get(path).content.decode()
        assert "<script>alert" not in html and "<i>x</i>" not in html, path


def test_a_running_games_page_shows_no_hand_to_anyone_not_seated(players, django_user_model):
    from played_games import played_game

    ann, ben, eve = players("ann", "ben", "eve")
    game = played_game([ann, ben], 3, seed=7)
    assert game.status == "running"
    from goat.games import eventstore

    state = eventstore.state_load(game)
    hands = {label for seat in range(2) for label in state.hands_str()[seat]}
    line = set(state.table.line_str())
    spectator, seated = Client(), Client()
    spectator.force_login(eve)
    seated.force_login(ann)
    for client in (Client(), spectator):
        html = client.get(f"/games/{game.pk}/").content.decode()
        drawn = set(_tiles(html))
        assert drawn == line, drawn - line  # only the line's tiles are drawn
        assert not (drawn - line) & hands and 'id="hand"' not in html
        assert 'id="replay"' not in html and 'id="fairness"' not in html and game.server_seed not in html
    own = set(_tiles(seated.get(f"/games/{game.pk}/").content.decode()))
    assert own == line | set(state.hands_str()[0])  # a seated player sees their own hand, not the other's


def _tiles(html: str) -> list[str]:
    import re

    return re.findall(r'class="tile[^"]*" role="img" aria-label="(\d-\d)"', html)


#: user-supplied text that breaks out of an element, an attribute (either quote) or a script if not escaped
HOSTILE_NAME = "<script>alert('u')</script>\"x"
HOSTILE_TOURNAMENT = "\"><script>alert('t')</script>"
HOSTILE_REASON = "<script>alert(\"r\")</script> 'quoted' & \"double\""


def _escaped(text: str) -> str:
    from django.utils.html import escape

    return escape(text)


def test_hostile_names_and_a_cancel_reason_are_escaped_on_every_page(django_user_model, players, finished_game,
                                                                     tournament):
    """Usernames, tournament names and the organiser's cancel reason, each a hostile value, on every
    page that shows them (the site, the play page, the admin's tournament and replay): each is shown
    (escaped) and never as markup."""
    from django.urls import reverse

    from goat.games import services as games
    from ratings.leaderboards import leaderboards_refresh
    from tournaments import services

    odd = django_user_model.objects.create_user(username=HOSTILE_NAME, password="x")  # past the API's checks
    ben, cat = players("ben", "cat")
    game = finished_game(odd, ben, seed=6)
    waiting = games.game_create(player=odd, ruleset="goat-classic", seats=2, options={"limit": 25}).game
    leaderboards_refresh()
    named = tournament(name=HOSTILE_TOURNAMENT, players=[odd, ben], start=False, starts_in=timedelta(days=1))
    cancelled = tournament(name="Rained off", players=[odd, cat], start=False, starts_in=timedelta(days=1))
    services.tournament_cancel(tournament_id=cancelled.pk, reason=HOSTILE_REASON)
    name, title, reason = _escaped(HOSTILE_NAME), _escaped(HOSTILE_TOURNAMENT), _escaped(HOSTILE_REASON)

    anonymous, signed_in, staff = Client(), Client(), Client()
    signed_in.force_login(odd)
    staff.force_login(django_user_model.objects.create_superuser(username="root", password="x"))
    expected = {  # page: the escaped texts it shows
        (anonymous, "/"): [name, title],
        (anonymous, reverse("page-player", args=[HOSTILE_NAME])): [name, title],
        (anonymous, f"/games/{game.pk}/"): [name],
        (anonymous, "/tournaments/"): [title, reason],
        (anonymous, "/tournaments/?status=cancelled"): [reason],
        (anonymous, f"/tournaments/{named.pk}/"): [title, name],
        (anonymous, f"/tournaments/{cancelled.pk}/"): [reason, name],
        (anonymous, "/leaderboards/"): [name],
        (signed_in, "/play/"): [name],
        (signed_in, f"/play/{waiting.pk}/"): [name],
        (staff, f"/admin/tournaments/tournament/{cancelled.pk}/change/"): [reason],
        (staff, f"/admin/tournaments/tournament/{named.pk}/cancel/"): [title],
        (staff, f"/admin/goat/game/{game.pk}/replay/?step=3"): [name],
        (staff, f"/admin/goat/game/{game.pk}/change/"): [name],
    }
    for (client, path), shown in expected.items():
        page = client.get(path)
        html = page.content.decode()
        assert page.status_code == 200, path
        for text in shown:
            assert text in html, (path, text)
        for raw in (HOSTILE_NAME, HOSTILE_TOURNAMENT, HOSTILE_REASON, "<script>alert"):
            assert raw not in html, (path, raw)
