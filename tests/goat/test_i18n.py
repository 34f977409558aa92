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

from goat.web import words
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
    from ratings.services import PERIODS
    from tournaments.models import TournamentFormat, TournamentStatus

    for value in [*GameStatus.values, *TournamentStatus.values, *TournamentFormat.values, *PERIODS]:
        assert value in words.WORDS, value


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
    assert "<script" not in html  # the switch is a plain form


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
