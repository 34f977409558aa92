"""The play page's server side (/play/, issue 27 item 4): sign-up, sign-in and sign-out with a Django
session behind CSRF, the same login checks as the token API (lockout, refusal like a wrong password,
the sign-up setting and rate limits), the server-rendered lobby, and a page that is whole without
JavaScript. The table itself is played in Chromium (tests/e2e/test_play_browser.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from goat.games import services

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery staple"
LIMIT = settings.AXES_FAILURE_LIMIT

pytestmark = pytest.mark.django_db


def csrf_client() -> Client:
    """A browser: CSRF checked as in production, its token read from the page's cookie."""
    client = Client(enforce_csrf_checks=True)
    page = client.get("/play/")
    assert page.status_code == 200
    return client


def post_form(client: Client, path: str, data: dict, **extra):
    return client.post(path, {"csrfmiddlewaretoken": client.cookies["csrftoken"].value, **data}, **extra)


def sign_up(client: Client, username="masha", password=PASSWORD):
    return post_form(client, "/play/signup/", {"signup-username": username, "signup-password": password})


def sign_in(client: Client, username="masha", password=PASSWORD):
    return post_form(client, "/play/signin/", {"signin-username": username, "signin-password": password})


def test_an_anonymous_visitor_sees_both_forms_with_labels_and_no_lobby():
    client = Client()
    page = client.get("/play/")
    html = page.content.decode()

    assert page.status_code == 200 and "csrftoken" in page.cookies
    for field in ("id_signin-username", "id_signin-password", "id_signup-username", "id_signup-password"):
        assert f'<label for="{field}"' in html and f'id="{field}"' in html
    assert 'id="open-games"' not in html and 'id="new-game"' not in html
    assert 'id="play-strings"' not in html  # the script's words come with the lobby


def test_sign_up_opens_a_session_and_shows_the_lobby():
    client = csrf_client()

    response = sign_up(client)

    assert response.status_code == 302 and response["Location"] == "/play/"
    page = client.get("/play/")
    html = page.content.decode()
    assert '<strong id="whoami">masha</strong>' in html
    assert 'id="new-game"' in html and 'id="open-games"' in html and 'id="my-games"' in html
    assert 'src="/static/play/play.js"' in html and 'type="module"' in html
    assert "The table needs JavaScript" in html  # said inside <noscript>
    assert client.get("/api/players/me/").json()["username"] == "masha"  # the API takes the session


def test_sign_up_goes_through_the_players_service_and_its_rules(django_user_model):
    django_user_model.objects.create_user(username="masha", password=PASSWORD)
    client = csrf_client()

    taken = sign_up(client, username="MASHA")
    weak = sign_up(client, username="alex", password="12345678")

    assert taken.status_code == 400 and "This username is taken." in taken.content.decode()
    assert weak.status_code == 400 and "password" in weak.content.decode().lower()
    assert not django_user_model.objects.filter(username="alex").exists()
    assert "_auth_user_id" not in client.session


def test_sign_up_respects_the_sign_up_setting(settings, django_user_model):
    settings.GOAT_SIGNUP_OPEN = False
    client = csrf_client()

    assert 'id="signup-closed"' in client.get("/play/").content.decode()
    response = sign_up(client)

    assert response.status_code == 403 and "Sign-up is closed on this server." in response.content.decode()
    assert not django_user_model.objects.filter(username="masha").exists()


def test_a_form_post_without_the_csrf_token_is_refused(django_user_model):
    django_user_model.objects.create_user(username="masha", password=PASSWORD)
    client = csrf_client()

    response = client.post("/play/signin/", {"signin-username": "masha", "signin-password": PASSWORD})

    assert response.status_code == 403
    assert "_auth_user_id" not in client.session


def test_sign_in_and_sign_out(django_user_model):
    django_user_model.objects.create_user(username="masha", password=PASSWORD)
    client = csrf_client()

    wrong = sign_in(client, password="not the password")
    right = sign_in(client, username="Masha")  # names compare in their fold, as for a token

    assert wrong.status_code == 400
    assert "Unable to log in with the given username and password." in wrong.content.decode()
    assert right.status_code == 302 and client.get("/api/players/me/").status_code == 200
    out = post_form(client, "/play/signout/", {})
    assert out.status_code == 302 and out["Location"] == "/play/"
    assert client.get("/api/players/me/").status_code == 401
    assert client.get("/play/signout/").status_code == 405  # signing out changes something: POST only


def test_sign_in_returns_to_the_table_it_came_from_and_nowhere_else(django_user_model):
    alice = django_user_model.objects.create_user(username="masha", password=PASSWORD)
    game = services.game_create(player=alice, ruleset="goat-classic", seats=2).game
    client = csrf_client()

    back = post_form(client, "/play/signin/", {"signin-username": "masha", "signin-password": PASSWORD,
                                               "next": f"/play/{game.pk}/"})
    elsewhere = post_form(client, "/play/signin/", {"signin-username": "masha", "signin-password": PASSWORD,
                                                    "next": "//evil.example/play/"})

    assert back["Location"] == f"/play/{game.pk}/"
    assert elsewhere["Location"] == "/play/"


def test_inactive_accounts_are_refused_like_a_wrong_password(django_user_model):
    django_user_model.objects.create_user(username="masha", password=PASSWORD, is_active=False)
    client = csrf_client()

    response = sign_in(client)

    assert response.status_code == 400
    assert "Unable to log in with the given username and password." in response.content.decode()


def test_the_login_lockout_covers_the_form_like_the_token_api(django_user_model):
    django_user_model.objects.create_user(username="masha", password=PASSWORD)
    client = csrf_client()

    statuses = [sign_in(client, password="wrong password").status_code for _ in range(LIMIT)]
    locked = sign_in(client)  # the right password, now
    api = Client().post("/api/auth/token/", {"username": "masha", "password": PASSWORD},
                        content_type="application/json")

    assert statuses == [400] * (LIMIT - 1) + [429]
    assert locked.status_code == 429 and int(locked["Retry-After"]) > 0
    assert "_auth_user_id" not in client.session
    assert api.status_code == 429 and api.json()["code"] == "login_locked_out"  # one count for both doors


def test_the_forms_count_against_the_apis_rate_limits(monkeypatch, django_user_model):
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "signup", "2/min")
    client = csrf_client()

    statuses = [sign_up(client, username=f"player{i}").status_code for i in range(3)]
    api = Client().post("/api/players/", {"username": "player9", "password": PASSWORD},
                        content_type="application/json")

    assert statuses == [302, 302, 429]
    assert api.status_code == 429  # the same counter as the API's sign-up: per client address
    assert not django_user_model.objects.filter(username__in=["player2", "player9"]).exists()


def test_the_lobby_lists_open_games_and_mine_as_the_api_does(django_user_model):
    masha = django_user_model.objects.create_user(username="masha", password=PASSWORD)
    alex = django_user_model.objects.create_user(username="alex", password=PASSWORD)
    olga = django_user_model.objects.create_user(username="olga", password=PASSWORD)
    open_game = services.game_create(player=alex, ruleset="domino-3rounds", seats=2).game
    full = services.game_create(player=alex, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=full.pk, player=olga)
    mine = services.game_create(player=masha, ruleset="goat-gamesburg", seats=3).game
    client = Client()
    client.force_login(masha)

    html = client.get("/play/").content.decode()
    open_list = re.search(r'<ul id="open-games".*?</ul>', html, re.S).group(0)
    my_list = re.search(r'<ul id="my-games".*?</ul>', html, re.S).group(0)

    api_open = [g["id"] for g in client.get("/api/games/?status=waiting&open=true").json()["results"]]
    api_mine = [g["id"] for g in client.get("/api/players/me/games/").json()["results"]]
    assert re.findall(r'data-game="(\d+)"', open_list) == [str(i) for i in api_open] == [str(open_game.pk)]
    assert re.findall(r'data-game="(\d+)"', my_list) == [str(i) for i in api_mine] == [str(mine.pk)]
    assert f'data-join="{open_game.pk}"' in open_list and "alex" in open_list and "1 free seat" in open_list
    assert f'href="/play/{mine.pk}/"' in my_list


def test_the_lobby_makes_a_bounded_number_of_queries(django_user_model, django_assert_max_num_queries):
    masha = django_user_model.objects.create_user(username="masha", password=PASSWORD)
    others = [django_user_model.objects.create_user(username=f"p{i}", password=PASSWORD) for i in range(6)]
    for other in others:
        services.game_create(player=other, ruleset="goat-classic", seats=4)
        game = services.game_create(player=masha, ruleset="goat-classic", seats=2).game
        services.game_join(game_id=game.pk, player=other)
    client = Client()
    client.force_login(masha)

    with django_assert_max_num_queries(12):
        assert client.get("/play/").status_code == 200


def test_the_table_page_carries_the_game_and_the_scripts_words():
    from django.contrib.auth import get_user_model

    masha = get_user_model().objects.create_user(username="masha", password=PASSWORD)
    game = services.game_create(player=masha, ruleset="domino-3rounds", seats=2).game
    client = Client()
    client.force_login(masha)

    page = client.get(f"/play/{game.pk}/")
    html = page.content.decode()

    assert page.status_code == 200
    assert f'data-game-id="{game.pk}"' in html and 'id="moves"' in html and 'id="rematch"' in html
    words = json.loads(re.search(r'<script id="play-strings" type="application/json">(.*?)</script>', html,
                                 re.S).group(1))
    # the table's words are the table model's (goat.games.table), not the script's
    assert "your_turn" not in words and "play_tile" not in words
    model = json.loads(re.search(r'<script id="table-model" type="application/json">(.*?)</script>', html,
                                 re.S).group(1))
    assert model["version"] == game.version and model["status"] == "waiting"
    assert "".join(p["text"] for p in model["state_line"]) == "Waiting for players: 1 of 2 seats taken"
    assert client.get("/play/999999/").status_code == 404
    # the engine's ended statuses are served to the script, which holds no copy of them
    from goat.engine import status

    assert f'data-ended="{" ".join(status.ENDED)}"' in html and f'data-played="{" ".join(status.PLAYED)}"' in html
    scripts = " ".join(p.read_text() for p in (ROOT / "play" / "static" / "play").glob("*.js"))
    alternatives = "|".join(status.ENDED)
    compared = re.compile(r'(===|!==|\[|,)\s*"(' + alternatives + ')"')  # a status compared or listed
    assert not compared.search(scripts), compared.search(scripts)


def test_the_page_has_no_inline_script_and_keeps_the_policy():
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.create_user(username="masha", password=PASSWORD))
    page = client.get("/play/")
    html = page.content.decode()

    scripts = re.findall(r"<script[^>]*>", html)
    assert all(' src="' in s or 'type="application/json"' in s for s in scripts), scripts
    assert "script-src 'self'" in page["Content-Security-Policy"]
    assert client.get("/static/play/play.js").status_code == 200


def test_the_page_and_the_scripts_words_speak_russian(django_user_model):
    client = Client(HTTP_ACCEPT_LANGUAGE="ru")
    anonymous = client.get("/play/").content.decode()
    client.force_login(django_user_model.objects.create_user(username="masha", password=PASSWORD))
    html = client.get("/play/").content.decode()

    assert '<html lang="ru">' in anonymous and "Войти" in anonymous and "Зарегистрироваться" in anonymous
    assert "Новая партия" in html and "Свободные столы" in html
    words = json.loads(re.search(r'<script id="play-strings" type="application/json">(.*?)</script>', html,
                                 re.S).group(1))
    assert words["resign_confirm"] == "Сдать партию?"


def test_the_table_model_speaks_russian_to_the_script(django_user_model):
    from factories import start_game

    masha, olga = (django_user_model.objects.create_user(username=n, password=PASSWORD) for n in ("masha", "olga"))
    game = start_game([masha, olga], options={"move_time": 0})
    mover = [masha, olga][game.turn]
    client = Client(HTTP_ACCEPT_LANGUAGE="ru")
    client.force_login(mover)
    model = client.get(f"/play/{game.pk}/table/").json()
    assert model["version"] == game.version and "".join(p["text"] for p in model["state_line"]) == "Ваш ход"
    assert model["moves"] and all(m["label"].startswith("Сходить ") for m in model["moves"])
    # the word under a tile that fits both ends says where it goes, not the case a sentence needs
    assert {m["end_text"] for m in model["moves"]} <= {"", "слева", "справа"}
    assert model["seats"][game.turn]["tags"] == "вы"
    assert client.get("/play/999999/table/").status_code == 404


def test_the_new_game_form_offers_the_engine_s_computer_levels_in_both_languages(django_user_model):
    from goat.engine.computer import DEFAULT_LEVEL, LEVELS

    user = django_user_model.objects.create_user(username="masha", password=PASSWORD)
    for language, expert in (("en", "expert (the strongest, thinks longest)"),
                             ("ru", "эксперт (сильнее всех, думает дольше)")):
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        client.force_login(user)
        html = client.get("/play/").content.decode()
        select = re.search(r'<select id="ng-level" name="computer_level">(.*?)</select>', html, re.S).group(1)
        offered = re.findall(r'<option value="([a-z]+)"(?: selected)?>([^<]+)</option>', select)
        assert [value for value, _ in offered] == list(LEVELS)  # weakest first, as the engine orders them
        assert f'<option value="{DEFAULT_LEVEL}" selected>' in select
        assert dict(offered)["expert"] == expert


def test_a_pairs_table_in_the_lobby_offers_each_free_seat_by_who_sits_opposite(django_user_model):
    """A goat-pairs table: each free seat is a button of its own, named by the partner it chooses (the
    player opposite), or by its number when nobody sits there yet (docs/api.md "Pairs")."""
    alex = django_user_model.objects.create_user(username="alex", password=PASSWORD)
    game = services.game_create(player=alex, ruleset="goat-pairs", seats=4, options={"move_time": 0}).game
    client = csrf_client()
    sign_up(client)
    html = client.get("/play/").content.decode()
    row = html[html.index(f'data-game="{game.pk}"'):]
    row = row[:row.index("</li>")]
    buttons = re.findall(r'<button type="button" class="join" data-join="(\d+)" data-seat="(\d)">([^<]+)</button>', row)
    assert buttons == [(str(game.pk), "1", "Sit at seat 2"), (str(game.pk), "2", "Sit opposite alex"),
                       (str(game.pk), "3", "Sit at seat 4")]
    strings = json.loads(re.search(r'<script id="play-strings" type="application/json">(.*?)</script>', html,
                                   re.S).group(1))
    assert strings["sit_opposite"] == "Sit opposite %(player)s"



def test_the_forms_offer_each_ruleset_the_seat_counts_it_is_played_with_and_the_api_refuses_the_rest(
        django_user_model):
    """Each ruleset of the new-game and challenge forms says the seat counts it is played with (the script
    offers only those, play/static/play/seats.js): exactly the counts the engine takes for it, so
    goat-pairs says 4. A count the seats list offers for another ruleset is refused by the API with a
    problem detail and nothing stored (a client without the script, or a page from before)."""
    from apitest import assert_problem, token_client
    from challenges.models import Challenge
    from goat.engine.errors import InvalidOptions
    from goat.engine.rulesets import RULESETS, resolve_options
    from goat.games.models import Game

    def takes(ruleset: str, seats: int) -> bool:
        try:
            resolve_options(ruleset, seats)
        except InvalidOptions:
            return False
        return True

    user = django_user_model.objects.create_user(username="masha", password=PASSWORD)
    client = Client()
    client.force_login(user)
    html = client.get("/play/").content.decode()
    refused = []
    for prefix in ("ng", "ch"):
        select = re.search(rf'<select id="{prefix}-ruleset" name="ruleset">(.*?)</select>', html, re.S).group(1)
        options = re.findall(r'<option value="([a-z0-9-]+)" data-seats="([0-9 ]+)"( data-paired)?>', select)
        offered = {ruleset: counts for ruleset, counts, _ in options}
        if prefix == "ng":  # the lobby's join buttons choose a seat at a paired table (play/static/play/lobby.js)
            assert [ruleset for ruleset, _, paired in options if paired] == ["goat-pairs"]
        seats = re.search(rf'<select id="{prefix}-seats" name="seats">(.*?)</select>', html, re.S).group(1)
        listed = [int(n) for n in re.findall(r'<option value="(\d)">', seats)]
        assert list(offered) == list(RULESETS)
        for ruleset, counts in offered.items():
            assert [int(n) for n in counts.split()] == [n for n in range(0, 9) if takes(ruleset, n)], ruleset
            assert set(map(int, counts.split())) <= set(listed)
            refused += [(ruleset, n) for n in listed if str(n) not in counts.split()]
    assert offered["goat-pairs"] == "4" and ("goat-pairs", 3) in refused
    api = token_client(user)
    for ruleset, n in refused:
        assert_problem(api.post("/api/games/", {"ruleset": ruleset, "seats": n}, format="json"), 400, "invalid_options")
        assert_problem(api.post("/api/challenges/", {"ruleset": ruleset, "seats": n}, format="json"), 400,
                       "invalid_options")
    assert not Game.objects.exists() and not Challenge.objects.exists()
