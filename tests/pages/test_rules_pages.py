"""The rules pages, /rules/ and /rules/{ruleset}/ (issue 34 item 6): one per ruleset in English and
Russian from one source (pages/rules.py), the same text as docs/rules.md's section, the facts the
engine plays by, every sentence translated."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import translation
from django.utils.html import escape

from goat.engine.rulesets import PRESETS, RULESETS
from pages import rules

pytestmark = pytest.mark.django_db


def test_docs_rules_md_holds_the_pages_text_in_english():
    assert rules.docs_section(rules.DOCS.read_text(encoding="utf-8")) == rules.rules_markdown(), (
        "docs/rules.md differs from pages/rules.py: run python manage.py rules_docs")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_sentence_of_a_rules_page_has_its_russian(ruleset):
    texts = rules.texts(ruleset)
    with translation.override("ru"):
        missing = [text for text in texts if translation.gettext(text) == text]
    assert not missing


def test_the_index_links_every_ruleset_in_both_languages():
    for language in ("en", "ru"):
        html = Client().get("/rules/", headers={"Accept-Language": language}).content.decode()
        for ruleset in RULESETS:
            assert f'href="/rules/{ruleset}/"' in html, (language, ruleset)
    assert "Правила" in Client().get("/rules/", headers={"Accept-Language": "ru"}).content.decode()
    assert 'id="nav-rules" href="/rules/"' in Client().get("/").content.decode()


def _paragraphs(html: str) -> list[str]:
    return re.findall(r"<p>(.*?)</p>", html[html.index('id="rules-facts"'):], re.S)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_rulesets_page_says_its_rules_and_its_presets_facts_in_english_and_russian(ruleset):
    english = Client().get(f"/rules/{ruleset}/").content.decode()
    russian = Client().get(f"/rules/{ruleset}/", headers={"Accept-Language": "ru"}).content.decode()
    preset = PRESETS[ruleset]
    facts = english[english.index('id="rules-facts"'):english.index("</table>")]
    assert f"<th scope=\"row\">Tiles dealt to each player</th><td>{preset['hand_size']}</td>" in facts
    assert f"<th scope=\"row\">Seconds for a move</th><td>{preset['move_time']}</td>" in facts
    if preset["scoring"] == "goat":
        assert f"<th scope=\"row\">Points limit</th><td>{preset['limit']}</td>" in facts
        assert "Rounds in a game" not in facts
        assert "Remembered points count" in facts
    else:
        assert f"<th scope=\"row\">Rounds in a game</th><td>{preset['rounds']}</td>" in facts
        assert "Points limit" not in facts and "Opening threshold" not in facts
    said = _paragraphs(english)
    prose = [text for text in rules.texts(ruleset) if len(text) > 80 and text != rules.SUMMARIES[ruleset]]
    assert said and all(escape(text) in said for text in prose), ruleset
    assert escape(rules.SUMMARIES[ruleset]) in english
    translated = _paragraphs(russian)
    assert len(translated) == len(said) and not set(translated) & set(said)
    assert all(re.search("[а-яё]", p) for p in translated)
    for word in ("базар", "цепочк"):
        assert word in russian, word


def test_the_goat_and_the_rounds_rules_differ_where_their_scoring_does():
    goat = Client().get("/rules/goat-classic/").content.decode()
    rounds = Client().get("/rules/domino-3rounds/").content.decode()
    assert "kept in mind" in goat and "kept in mind" not in rounds
    assert "smallest double" in rounds and "holder of 1-1" in goat
    gamesburg = Client().get("/rules/goat-gamesburg/").content.decode()
    assert "ante" in gamesburg and "ante in chips to sit down" not in goat


def test_an_unknown_ruleset_is_the_sites_404_page():
    for path in ("/rules/nope/", "/rules/goat-classic-2/", "/rules/%D0%BA/"):
        page = Client().get(path)
        assert page.status_code == 404, path
        assert 'id="not-found"' in page.content.decode()
