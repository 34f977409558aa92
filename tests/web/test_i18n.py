"""Russian and English (docs/development.md "Translations"): the catalog, the switch, the pages.

The catalog test extracts every translatable string of the whole project (every app folder at the
repository's top, templates and Python, whatever engineer adds it) with the project's own
``makemessages`` into a temporary copy, and fails on any string without a Russian translation.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from goat.games import words
from goat.web import words as site_words
from goat.web.management.commands.makemessages import IGNORED

ROOT = Path(__file__).resolve().parents[2]
CATALOG = Path(settings.LOCALE_PATHS[0])
RU_PO = CATALOG / "ru" / "LC_MESSAGES" / "django.po"


def _project_copy(into: Path) -> Path:
    """Every top-level folder of the repository that can hold page strings, copied under ``into``."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.mo", "*.sqlite3", "locale")
    for entry in ROOT.iterdir():
        if entry.is_dir() and not entry.name.startswith(".") and not any(
                Path(entry.name).match(pattern) for pattern in IGNORED):
            shutil.copytree(entry, into / entry.name, ignore=skip)
    locale = into / CATALOG.relative_to(ROOT)
    for po in CATALOG.glob("*/LC_MESSAGES/*.po"):
        (locale / po.parent.relative_to(CATALOG)).mkdir(parents=True, exist_ok=True)
        shutil.copy(po, locale / po.relative_to(CATALOG))
    return locale


def _untranslated(po: polib.POFile) -> list[str]:
    return [(f"{entry.msgctxt}|" if entry.msgctxt else "") + entry.msgid
            for entry in po if not entry.obsolete and (not entry.translated() or "fuzzy" in entry.flags)]


def test_every_string_of_the_project_has_a_russian_translation(tmp_path):
    locale = _project_copy(tmp_path)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with override_settings(LOCALE_PATHS=[str(locale)]):
            call_command("makemessages", locale=["ru"], verbosity=0)
            call_command("makemessages", locale=["ru"], domain="djangojs", verbosity=0)
    finally:
        os.chdir(cwd)
    extracted = polib.pofile(str(locale / "ru" / "LC_MESSAGES" / "django.po"))
    assert len(extracted) > 50, "the extraction found (almost) nothing: is the copy complete?"
    assert _untranslated(extracted) == [], (
        "strings without Russian: run `python manage.py makemessages -l ru`, translate them in "
        f"{RU_PO.relative_to(ROOT)}, then `python manage.py compilemessages`")
    js = locale / "ru" / "LC_MESSAGES" / "djangojs.po"
    if js.exists():
        assert _untranslated(polib.pofile(str(js))) == []
    # and the committed catalog is what the extraction gives (no string left only in the committed file)
    committed = {(entry.msgctxt, entry.msgid) for entry in polib.pofile(str(RU_PO)) if not entry.obsolete}
    assert committed == {(entry.msgctxt, entry.msgid) for entry in extracted}


def test_the_untranslated_check_catches_a_new_string(tmp_path):
    """The check above can fail: a template string that the catalog lacks is reported."""
    locale = _project_copy(tmp_path)
    page = tmp_path / "goat" / "web" / "templates" / "site" / "new_page.html"
    page.write_text('{% load i18n %}<p>{% translate "A sentence nobody has translated" %}</p>\n')
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with override_settings(LOCALE_PATHS=[str(locale)]):
            call_command("makemessages", locale=["ru"], verbosity=0)
    finally:
        os.chdir(cwd)
    assert _untranslated(polib.pofile(str(locale / "ru" / "LC_MESSAGES" / "django.po"))) == [
        "A sentence nobody has translated"]


@pytest.mark.parametrize("po_path", sorted(CATALOG.glob("*/LC_MESSAGES/*.po")), ids=lambda p: p.parent.parent.name)
def test_the_committed_mo_is_compiled_from_the_po(po_path):
    mo_path = po_path.with_suffix(".mo")
    assert mo_path.exists(), f"run `python manage.py compilemessages` and commit {mo_path.name}"

    def entries(catalog, keep=lambda entry: True):
        return {(e.msgctxt, e.msgid): (e.msgstr, tuple(sorted(e.msgstr_plural.items())))
                for e in catalog if e.msgid and keep(e)}

    po = entries(polib.pofile(str(po_path)), keep=lambda e: e.translated() and "fuzzy" not in e.flags)
    assert entries(polib.mofile(str(mo_path))) == po, (
        "the .mo is stale: run `python manage.py compilemessages`")


def test_the_catalog_ships_in_the_package():
    from tomllib import loads

    package_data = loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["*"]
    assert "locale/**/*" in package_data
    assert CATALOG == ROOT / "goat" / "locale"  # inside the goat package, so package-data takes it


def test_every_stored_status_format_and_period_has_a_word():
    from goat.games.models import GameStatus
    from ratings.leaderboards import PERIODS
    from tournaments.models import TournamentFormat, TournamentStatus

    for value in [*TournamentFormat.values, *PERIODS]:
        assert value in site_words.WORDS, value
    assert set(GameStatus.values) <= set(words.GAME_STATUSES)  # a status is said of its noun
    assert set(TournamentStatus.values) <= set(site_words.TOURNAMENT_STATUSES)


# --- the pages and the switch ------------------------------------------------------------------------


@pytest.mark.django_db
def test_english_is_the_default(client):
    html = client.get("/leaderboards/").content.decode()
    assert '<html lang="en">' in html and "<h1>Leaderboards</h1>" in html and "Лидеры" not in html


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/leaderboards/", "/leaderboards/?board=skill", "/tournaments/"])
def test_accept_language_ru_gives_russian_pages(client, path):
    response = client.get(path, HTTP_ACCEPT_LANGUAGE="ru-RU,ru;q=0.9,en;q=0.5")
    html = response.content.decode()
    assert response.status_code == 200 and '<html lang="ru">' in html
    assert "Турниры" in html and "Лидеры" in html and "Язык" in html
    assert "Leaderboards" not in html and "Tournaments" not in html
    assert "Accept-Language" in response["Vary"]


@pytest.mark.django_db
def test_an_unknown_language_falls_back_to_english(client):
    html = client.get("/tournaments/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9").content.decode()
    assert '<html lang="en">' in html and "<h1>Tournaments</h1>" in html


@pytest.mark.django_db
def test_the_tournament_page_in_russian(client, django_user_model):
    from datetime import datetime, timedelta

    from tournaments.services import tournament_create

    director = django_user_model.objects.create_user(username="director", password="x", is_staff=True)
    tournament = tournament_create(created_by=director, name="Кубок двора", ruleset="goat-classic", options={},
                                   format="swiss", rounds=3, table_size=4, max_players=8, entry_fee=0,
                                   starts_at=datetime.now().astimezone() + timedelta(days=1), duration_minutes=60)
    html = client.get(f"/tournaments/{tournament.pk}/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Турнирная таблица" in html and "швейцарка" in html and "3 тура" in html
    assert "по расписанию" in html and "Пока никто не записался." in html


@pytest.mark.django_db
def test_every_page_carries_the_language_switch(client):
    html = client.get("/tournaments/").content.decode()
    assert 'action="/i18n/setlang/"' in html and 'name="csrfmiddlewaretoken"' in html
    assert '<option value="ru" lang="ru">Русский</option>' in html and '<option value="en" lang="en" selected>' in html
    assert 'name="next" type="hidden" value="/tournaments/"' in html
    switch = html[html.index('action="/i18n/setlang/"'):]
    assert "<script" not in switch[:switch.index("</form>")]  # the switch is a plain form


@pytest.mark.django_db
def test_the_switch_sets_the_language_and_returns_to_the_page(client):
    response = client.post("/i18n/setlang/", {"language": "ru", "next": "/tournaments/?status=running"})
    assert response.status_code == 302 and response["Location"] == "/tournaments/?status=running"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ru"
    # the cookie wins over the browser's Accept-Language from then on
    html = client.get("/tournaments/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="ru">' in html and "<h1>Турниры</h1>" in html
    client.post("/i18n/setlang/", {"language": "en", "next": "/tournaments/"})
    assert "<h1>Tournaments</h1>" in client.get("/tournaments/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()


@pytest.mark.django_db
def test_the_switch_refuses_another_site_and_an_unknown_language(client):
    response = client.post("/i18n/setlang/", {"language": "ru", "next": "https://evil.example/"})
    assert response.status_code == 302 and response["Location"] == "/"
    response = client.post("/i18n/setlang/", {"language": "xx", "next": "/tournaments/"})
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies


# --- the API's problem details ---------------------------------------------------------------------

RU = {"HTTP_ACCEPT_LANGUAGE": "ru-RU,ru;q=0.9"}


def _both(client, method: str, url: str, body=None) -> tuple[dict, dict]:
    """The same refused request in English and in Russian: the two problems (same status and code)."""
    def call(**headers):
        if method == "get":
            return client.get(url, **headers)
        return getattr(client, method)(url, body or {}, format="json", **headers)

    english, russian = call(), call(**RU)
    assert english.status_code == russian.status_code
    assert english["Content-Type"] == russian["Content-Type"] == "application/problem+json"
    en, ru = english.json(), russian.json()
    assert (en["code"], en["type"], en["status"]) == (ru["code"], ru["type"], ru["status"])  # code never changes
    return en, ru


@pytest.mark.django_db
def test_a_service_refusal_in_russian_keeps_its_code(api_client, user):
    en, ru = _both(api_client, "get", "/api/games/987654/")
    assert (en["title"], en["detail"]) == ("Not found", "No game with that id.")
    assert (ru["title"], ru["detail"], ru["code"]) == ("Не найдено", "Нет партии с таким номером.", "not_found")
    en, ru = _both(api_client, "post", "/api/players/", {"username": user.username, "password": "a fine long password"})
    assert ru["code"] == "username_taken" and ru["errors"] == {"username": ["Это имя занято."]}
    assert en["errors"] == {"username": ["This username is taken."]}


@pytest.mark.django_db
def test_drf_and_django_refusals_in_russian(api_client):
    en, ru = _both(api_client, "post", "/api/games/", {"ruleset": "goat-classic", "seats": 2})
    assert en == {**en, "code": "not_authenticated", "title": "Not authenticated"}
    assert (ru["title"], ru["detail"]) == ("Нужен вход", "Нужен вход: токен не передан.")
    en, ru = _both(api_client, "get", "/api/nothing-here/")
    assert (ru["code"], ru["detail"]) == ("not_found", "По этому адресу API ничего нет.")
    en, ru = _both(api_client, "get", "/api/tournaments/?status=paused")
    assert ru["code"] == en["code"] == "invalid" and ru["errors"]["status"] != en["errors"]["status"]
    assert ru["title"] == "Неверные данные"


@pytest.mark.django_db
def test_an_engine_refusal_in_russian_names_the_same_tile_and_seats(django_user_model):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from goat.engine.tiles import tile_str
    from goat.games import eventstore, services
    from goat.games.models import Game

    ann, ben = (django_user_model.objects.create_user(name, password="x" * 12) for name in ("ann", "ben"))
    game = services.game_create(player=ann, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=game.pk, player=ben)
    state = eventstore.state_load(Game.objects.get(pk=game.pk))
    idle = (ann, ben)[1 - state.turn]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=idle).key}")
    tile = tile_str(state.table.must_lead)
    en, ru = _both(client, "post", f"/api/games/{game.pk}/moves/", {"tile": tile})
    assert en["code"] == ru["code"] == "not_your_turn" and en["status"] == 422
    # seats as people count them, from 1 (the API's seat numbers count from 0)
    turn, idle_seat = state.turn + 1, 2 - state.turn
    assert en["detail"] == f"It is seat {turn}'s turn, not seat {idle_seat}'s."
    assert ru["detail"] == f"Сейчас ходит место {turn}, а не место {idle_seat}."
    assert ru["title"] == "Не ваш ход"


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "code", "english", "russian"), [
    ({"ruleset": "goat-classic", "seats": 2, "options": {"limit": 0}}, "invalid_options",
     "option 'limit' must be a whole number from 1 to 10000.", "Настройка 'limit' — целое число от 1 до 10000."),
    ({"ruleset": "goat-classic", "seats": 4, "options": {"hand_size": 8, "redeal": False}}, "invalid_options",
     "hand_size 8 x 4 seats = 32 tiles, but a set has only 28.", "hand_size 8 × мест 4 = костяшек 32, а в наборе"),
    ({"ruleset": "chess", "seats": 2}, "unknown_ruleset", None, "Неизвестные правила 'chess'; выберите одни из: "),
])
def test_an_option_refusal_of_the_engine_in_russian(django_user_model, body, code, english, russian):
    """The engine's refusals built from values (the option, its bounds) come out in Russian too."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    user = django_user_model.objects.create_user("ann", password="x" * 12)
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    en, ru = _both(client, "post", "/api/games/", body)
    assert en["code"] == ru["code"] == code and en["status"] == 400
    assert english is None or en["detail"] == english
    assert russian is None or ru["detail"].startswith(russian)
    assert ru["detail"] != en["detail"]


def test_each_sentence_of_a_code_with_two_is_said_in_russian():
    from django.utils import translation

    from goat.engine.errors import IllegalMove
    from goat.games.rules_texts import rules_detail

    one_end = IllegalMove("tile_does_not_fit", "3-5 does not fit the left end (2).", tile="3-5", end="left", value=2)
    neither = IllegalMove("tile_does_not_fit", "3-5 fits neither end of the line (2 and 6).", tile="3-5", left=2,
                          right=6)
    with translation.override("ru"):
        assert rules_detail(one_end) == "3-5 не подходит к левому концу (2)."
        assert rules_detail(neither) == "3-5 не подходит ни к одному концу цепочки (2 и 6)."
    with translation.override("en"):
        assert (rules_detail(one_end), rules_detail(neither)) == (one_end.detail, neither.detail)


def test_every_code_the_project_raises_has_a_title_in_both_languages():
    """Scans every app (today's and tomorrow's) for the codes it raises: each has its words."""
    import re

    from django.utils import translation

    from goat.web.errors import declared_codes

    titles = {code: declared.title for code, declared in declared_codes().items()}

    patterns = [
        r'(?:ServiceError|IllegalMove|RulesError|InvalidEvent|InvalidOptions|StateFormatError|UnknownStateFormat)'
        r'(?:\.said)?\(\s*"([a-z_]+)"',
        r'^\s+code(?:: str)? = "([a-z_]+)"',
        r'problem\w*\([^()]*?\bcode="([a-z_]+)"',
        r'\((?:exceptions\.\w+|InvalidCharacters), "([a-z_]+)"\)',
        r'\b[A-Z]\w*(?:Error|Refusal)\.([A-Z_]+)\(',  # an app's declared code, raised (goat.web.errors.ErrorCode)
    ]
    codes = set()
    for entry in ROOT.iterdir():
        if entry.is_dir() and not entry.name.startswith(".") and entry.name not in ("tests", "bench", "docs"):
            for source in entry.rglob("*.py"):
                text = source.read_text(encoding="utf-8")
                for pattern in patterns:
                    codes.update(code.lower() for code in re.findall(pattern, text, flags=re.M | re.S))
    assert {"not_found", "not_your_turn", "username_taken", "throttled", "invalid"} <= codes
    assert sorted(codes - set(titles)) == [], "declare them in their app's errors.py, with a title (and Russian)"
    with translation.override("ru"):
        untranslated = [code for code in codes if str(titles[code]) == code.replace("_", " ").capitalize()]
    assert untranslated == []


def test_every_sentence_of_the_engines_refusals_is_translated():
    """The engine writes English (it knows no Django): each fixed sentence of a refusal a player can
    meet (IllegalMove, InvalidOptions) is in goat/games/rules_texts.py, translated; each sentence built
    from values is either said from a template (``said``), which is there too, translated, or rebuilt
    there from the error's parameters (``BY_CODE``). None stays English."""
    import ast

    from django.utils import translation

    import goat.engine.errors as engine_errors
    from goat.games.rules_texts import BY_CODE, SENTENCES, TEMPLATES

    player_facing = {"IllegalMove", "InvalidOptions"}
    fixed, built, templates = set(), set(), set()
    for source in (ROOT / "goat" / "engine").glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "said"
                    and getattr(node.func.value, "id", None) in player_facing):
                assert isinstance(node.args[1], ast.Constant), ast.unparse(node)  # a template, not built
                templates.add(node.args[1].value)
                continue
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) in player_facing):
                continue
            args = list(node.args) + [k.value for k in node.keywords if k.arg == "detail"]
            code = args[0].value if args and isinstance(args[0], ast.Constant) and len(node.args) > 1 else None
            detail = args[1] if code is not None else (args[-1] if args else None)
            if isinstance(detail, ast.Constant):
                fixed.add(detail.value)
            elif isinstance(detail, ast.Name) and isinstance(getattr(engine_errors, detail.id, None), str):
                fixed.add(getattr(engine_errors, detail.id))
            elif isinstance(detail, ast.JoinedStr):
                built.add(code or "invalid_options")
    assert fixed and sorted(fixed - set(SENTENCES)) == []
    assert len(templates) > 10 and sorted(templates ^ set(TEMPLATES)) == []
    with translation.override("ru"):
        assert [s for s in (*SENTENCES, *TEMPLATES) if translation.gettext(s) == s] == []
    assert sorted(built - set(BY_CODE)) == []


@pytest.mark.parametrize(("error", "russian"), [
    ("InvalidOptions|option {option!r} must be a whole number from {lo} to {hi}.|option=limit,lo=1,hi=10000",
     "Настройка 'limit' — целое число от 1 до 10000."),
    ("IllegalMove|{end!r} is not an end of the line; say \"left\" or \"right\".|end=up",
     "'up' — не конец цепочки; укажите \"left\" или \"right\"."),
])
def test_a_refusal_said_from_a_template_is_filled_in_russian(error, russian):
    from django.utils import translation

    from goat.engine import errors
    from goat.games.rules_texts import rules_detail

    kind, template, params = error.split("|")
    refused = getattr(errors, kind).said(None, template, **dict(p.split("=") for p in params.split(",")))
    with translation.override("ru"):
        assert rules_detail(refused) == russian
    with translation.override("en"):
        assert rules_detail(refused) == refused.detail == template.format(**refused.context)


@pytest.mark.django_db
def test_the_admins_own_pages_in_russian(client, django_user_model):
    """The game's admin page, its replay and an action speak Russian (Django's own admin strings come
    with Django); the English stays the default."""
    from django.contrib.auth.models import Permission

    from goat.games import services

    ann, ben = (django_user_model.objects.create_user(name, password="x" * 12) for name in ("ann", "ben"))
    game = services.game_create(player=ann, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=game.pk, player=ben)
    services.game_resign(game_id=game.pk, player=ann)
    judge = django_user_model.objects.create_user("judge", password="x" * 12, is_staff=True)
    judge.user_permissions.add(*Permission.objects.filter(codename__in=["audit_game", "view_game", "view_gameevent"]))
    client.force_login(judge)
    change = client.get(f"/admin/goat/game/{game.pk}/change/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Запись счёта" in change and "Проверить партию" in change and "Журнал событий" in change
    replay = client.get(f"/admin/goat/game/{game.pk}/replay/?step=5", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Повтор партии" in replay and "Только для персонала" in replay and "Scoresheet" not in replay
    english = client.get(f"/admin/goat/game/{game.pk}/change/").content.decode()
    assert "Scoresheet" in english and "Verify this game" in english
    listing = client.get("/admin/goat/game/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Проверить выбранные партии" in listing


@pytest.mark.django_db
def test_a_tile_that_is_no_tile_is_refused_in_russian(django_user_model):
    """``invalid_tile`` (a tile text the engine cannot read) says its detail in the caller's language."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from goat.games import eventstore, services
    from goat.games.models import Game

    ann, ben = (django_user_model.objects.create_user(name, password="x" * 12) for name in ("ann", "ben"))
    game = services.game_create(player=ann, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=game.pk, player=ben)
    mover = (ann, ben)[eventstore.state_load(Game.objects.get(pk=game.pk)).turn]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=mover).key}")
    en, ru = _both(client, "post", f"/api/games/{game.pk}/moves/", {"tile": "9-9"})
    assert en["code"] == ru["code"] == "invalid_tile"
    assert en["detail"].startswith("'9-9' is not a domino tile")
    assert ru["detail"] == "'9-9' — не костяшка домино." and ru["title"] != en["title"]


def _untranslated_details() -> list[str]:
    """Service refusals whose detail is English prose written in place (a plain string, or a built one
    with words of its own), so it would stay English in Russian. ``f"{field}: {message}"`` and
    ``"field: " + message`` name a field (a code) before a translated message: allowed; so is
    anything a call gives (``gettext(...)``, a lazy text)."""
    import ast
    import re

    def literals(node) -> list[str]:
        if isinstance(node, ast.Call):
            return []
        if isinstance(node, ast.Constant):
            return [node.value] if isinstance(node.value, str) else []
        return [text for child in ast.iter_child_nodes(node) for text in literals(child)]

    found = []
    for source in ROOT.rglob("*.py"):
        if {".venv", "tests", "bench", "migrations"} & set(source.relative_to(ROOT).parts):
            continue
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            name = getattr(node, "func", None)
            if not (isinstance(node, ast.Call) and getattr(name, "id", getattr(name, "attr", None)) == "ServiceError"):
                continue
            args = list(node.args) + [k.value for k in node.keywords if k.arg == "detail"]
            if len(args) < 2:
                continue
            if any(re.search(r"[A-Za-z]{2,}\s+[A-Za-z]", text) for text in literals(args[1])):  # prose
                found.append(f"{source.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_service_refusal_says_its_detail_in_the_callers_language():
    assert _untranslated_details() == []


@pytest.mark.parametrize(("language", "expected"), [
    ("ru", "Козёл пара на пару: играют две пары, мест должно быть 4."),
    ("en", "Goat in pairs is played by two pairs: seats must be 4."),
])
def test_a_refusal_names_the_ruleset_as_players_read_it_not_its_code(language, expected):
    from django.utils import translation

    from goat.engine import rulesets
    from goat.engine.errors import RulesError
    from goat.games.rules_texts import rules_detail

    with pytest.raises(RulesError) as caught:
        rulesets.resolve_options("goat-pairs", 3, {})
    assert "goat-pairs" in caught.value.detail  # the engine's English keeps the code; a player never reads it
    with translation.override(language):
        assert rules_detail(caught.value) == expected
