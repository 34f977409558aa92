"""Every page in both languages reads as a person expects (docs/site.md "Principles"):

* numbers a machine reads (SVG geometry, ``data-*`` values, JSON islands) are never localised: a
  Russian page writes ``cy="154.5"``, never ``cy="154,5"``;
* no stored code (a status, an event type, a ruleset) is visible text: each has its word;
* a count in Russian takes the form its number asks for (1 партия, 2 партии, 5 партий, 21 партия).

The world is tests/site_tour.py (games of each ruleset, one with a computer, running and waiting ones,
tournaments in every status); every page of the site, the play page and the admin (changelists, the
game's page, its replay at each kind of step) is read once per language, in one module fixture.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import polib
import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from goat.engine.events import HANDLERS
from goat.engine.rulesets import RULESETS
from goat.games import words
from goat.games.models import GameStatus
from goat.web import words as site_words
from tournaments.models import TournamentStatus

RU_PO = settings.LOCALE_PATHS[0] / "ru" / "LC_MESSAGES" / "django.po"
LANGUAGES = ("en", "ru")


def read_every_page() -> dict[tuple[str, str], str]:
    """``(language, who and path) -> html`` of every page of the tour (tests/site_tour.py), read
    anonymously, as a seated player and as staff."""
    from site_tour import build_tour

    tour = build_tour()
    read: dict[tuple[str, str], str] = {}
    for language in LANGUAGES:
        for who, paths in ((None, tour.public), (tour.player, tour.signed_in), (tour.staff, tour.admin)):
            client = Client(HTTP_ACCEPT_LANGUAGE=language)
            if who is not None:
                client.force_login(who)
            for path in paths:
                response = client.get(path)
                assert response.status_code in (200, 404), (language, path, response.status_code)
                read[(language, f"{path} as {who or 'visitor'}")] = response.content.decode()
    return read


@pytest.mark.django_db
def test_every_page_in_both_languages():
    """One crawl (it takes a while), three checks: machine numbers parse, no raw code is visible text,
    no Russian count takes the wrong form."""
    pages = read_every_page()
    svgs = sum(1 for html in pages.values() for _ in re.finditer(r"<svg\b", html))
    charts = [key for key in pages if key[0] == "ru" and 'class="rating-chart"' in pages[key]]
    assert svgs > 10 and charts, "the tour has no rating chart or SVG to check"
    read = {key: Page(html) for key, html in pages.items()}
    found = {
        "numbers": {key: bad for key, page in read.items() if (bad := unparsable_numbers(page))},
        "raw codes": {key: bad for key, page in read.items() if (bad := raw_codes(page.text, key[0]))},
        "miscounts": {key: bad for key, page in read.items() if key[0] == "ru" and (bad := miscounted(page.text))},
        "last words": {key: bad for key, page in read.items() if (bad := unfinished_words(page.text, key[0]))},
    }
    assert {kind: sorted({(key[0], bad) for key, bads in pages.items() for bad in bads})
            for kind, pages in found.items()} == {"numbers": [], "raw codes": [], "miscounts": [],
                                                   "last words": []}, found


# --- reading a page ------------------------------------------------------------------------------------

#: elements whose text is machine text shown as such (a command, an event's stored data) or not shown
NOT_PROSE = {"script", "style", "code", "pre"}
#: elements whose texts are separate (cells of a table, items of a list)
CELLS = {"td", "th", "li", "option", "dt", "dd", "tr", "p", "div", "h1", "h2", "h3"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Page(HTMLParser):
    """A page's visible prose, its SVG elements' attributes, its ``data-*`` attributes and JSON islands."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.prose: list[str] = []
        self.svg_attrs: list[tuple[str, str, str]] = []
        self.data_attrs: list[tuple[str, str]] = []
        self.islands: list[str] = []
        self._island = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        inside_svg = tag == "svg" or "svg" in self.stack
        for name, value in attrs:
            if value is None:
                continue
            if inside_svg:
                self.svg_attrs.append((tag, name, value))
            if name.startswith("data-"):
                self.data_attrs.append((name, value))
        self._island = tag == "script" and dict(attrs).get("type") == "application/json"
        if tag in CELLS:
            self.prose.append(" | ")  # text of two cells never reads as one phrase
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if self._island and self.stack and self.stack[-1] == "script":
            self.islands.append(data)
        elif not NOT_PROSE.intersection(self.stack):
            self.prose.append(data)

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.prose))


# --- 1. machine numbers ------------------------------------------------------------------------------

#: SVG presentation attributes that hold numbers (a list of them for viewBox and points)
SVG_NUMBERS = {"x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "width", "height", "viewBox",
               "stroke-width", "font-size", "points", "dx", "dy", "opacity"}
NUMBER = r"-?\d+(?:\.\d+)?(?:e-?\d+)?"


def unparsable_numbers(page: Page) -> list[str]:
    bad = []
    for tag, name, value in page.svg_attrs:
        if name not in SVG_NUMBERS:
            continue
        if name == "points":
            ok = all(re.fullmatch(f"{NUMBER},{NUMBER}", pair) for pair in value.split())
        else:
            ok = all(re.fullmatch(f"{NUMBER}(?:px|r?em|%)?", part) for part in value.split())
        if not ok:
            bad.append(f'<{tag} {name}="{value}">')
    for name, value in page.data_attrs:  # a decimal comma or a grouped number ("1,5", "25 000")
        if re.fullmatch(r"-?\d+(?:[,\u00a0\u202f]\d+)+", value):
            bad.append(f'{name}="{value}"')
    for island in page.islands:
        try:
            json.loads(island)
        except ValueError:
            bad.append(f"JSON island {island[:60]!r}")
    return bad


def test_the_number_check_catches_a_localised_coordinate():
    page = Page('<svg viewBox="0 0 560 180"><circle cx="48.5" cy="154,0" r="2.5"/>'
                '<polyline points="48,5,154,0 60,5,70,0"/></svg><p data-remaining-ms="1,5" data-seat="2">x</p>')
    assert unparsable_numbers(page) == ['<circle cy="154,0">', '<polyline points="48,5,154,0 60,5,70,0">',
                                        'data-remaining-ms="1,5"']


# --- the last words (issue 51): «кон», not «раунд»; «с базара»; no ruleset code; no ISO date ----------

#: a ruleset's code humanised ("goat classic"): what a page shows for a ruleset without its word
HUMANISED_RULESETS = [site_words.humanised(name) for name in RULESETS]
ISO_DATE = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")


def unfinished_words(text: str, language: str) -> list[str]:
    """What a native reader stopped at: «раунд» (a round is «кон», a tournament's «тур») and «из базара»
    (it is «с базара») in Russian; in either language a ruleset's code, humanised or not, an ISO date
    or a time said in UTC as visible text (a date is said in the reader's form and time zone)."""
    found = []
    if language == "ru":
        found += sorted({m.group(0).lower() for m in re.finditer(r"[Рр]аунд\w*|из базара", text)})
    found += [name for name in [*RULESETS, *HUMANISED_RULESETS] if re.search(rf"(?<![\w-]){name}(?![\w-])", text)]
    found += sorted(set(ISO_DATE.findall(text)))
    if re.search(r"\d:\d\d UTC\b", text):  # a time said in UTC (a zone's name in the settings is not)
        found.append("UTC")
    return found


def test_the_last_words_check_catches_each_kind():
    assert unfinished_words("Кон 2 · раунда 3 · берёт из базара", "ru") == ["из базара", "раунда"]
    assert unfinished_words("Rules: goat classic · created 2026-12-06 04:17 UTC", "en") == [
        "goat classic", "2026-12-06", "UTC"]
    assert unfinished_words("6 декабря 2026, 07:17 · Козёл, классика · кон 2", "ru") == []


# --- 2. raw codes --------------------------------------------------------------------------------------

STATUSES = {*GameStatus.values, *TournamentStatus.values}
CODES = {*STATUSES, *HANDLERS, *RULESETS}


def raw_codes(text: str, language: str) -> list[str]:
    """The codes visible in ``text``. A code written with "_" or "-" is never an English word; a status
    or an event like ``running`` or ``knocked`` is one, so it is looked for in Russian only."""
    found = []
    for code in sorted(CODES):
        if language == "en" and not re.search(r"[-_]", code):
            continue
        if re.search(rf"(?<![\w-]){re.escape(code)}(?![\w-])", text):
            found.append(code)
    return found


def test_the_raw_code_check_catches_a_code_but_not_an_attribute_or_a_command():
    page = Page('<p class="badge running" data-type="tile_played">Партия 3 running, '
                'ход <a href="/leaderboards/?ruleset=goat-classic">Козёл</a></p><pre><code>seat_taken</code></pre>')
    assert raw_codes(page.text, "ru") == ["running"]
    assert raw_codes("game 3 is running: tile_played", "en") == ["tile_played"]


def test_an_unknown_code_is_shown_humanised_never_a_crash():
    from goat.games.captions import caption

    with translation.override("ru"):
        assert words.ruleset("chess-960") == "chess 960"
        assert words.game_status("paused") == site_words.tournament_status("paused") == "paused"
        assert words.event("tile_flipped") == "tile flipped"
        assert caption({"type": "tile_flipped", "seat": 0, "data": {}}, ["anya"]) == "tile flipped: anya"
        assert caption({"type": "seat_taken", "seat": None, "data": {"player": "anya", "seat": 1}}, []) == (
            "anya садится на место 2.")  # seats as people count them
        assert words.ruleset(None) == words.seat(None) == ""


def test_every_code_has_its_word_in_both_languages():
    from goat.engine import status
    from goat.engine.scoring import END_FISH, END_OUT

    endings = [*status.RESULT_REASONS, *status.CANCEL_REASONS, END_OUT, END_FISH]
    assert sorted(words.ENDINGS) == sorted(endings)  # keyed by the engine's names, one word each
    tables = [(GameStatus.values, words.GAME_STATUSES), (TournamentStatus.values, site_words.TOURNAMENT_STATUSES),
              (RULESETS, words.RULESETS), (list(HANDLERS), words.EVENTS), (endings, words.ENDINGS)]
    for values, table in tables:
        assert sorted(set(values) - set(table)) == []
        for value in values:
            with translation.override("ru"):
                russian = str(table[value])
            with translation.override("en"):
                english = str(table[value])
            assert russian != english and russian != value  # English may say a status as its code


def test_a_status_agrees_with_its_noun():
    with translation.override("ru"):
        assert (words.game_status("finished"), site_words.tournament_status("finished")) == ("завершена", "завершён")
        assert (words.game_status("cancelled"), site_words.tournament_status("cancelled")) == ("отменена", "отменён")


# --- 3. plural forms -----------------------------------------------------------------------------------

#: English nouns a number counts
COUNTED = (r"games?|points?|tiles?|seats?|players?|rounds?|chips?|times|events?|moves?|entries|entry|"
           r"tournaments?|goats?|users?|rows?|steps?|attempts?|views?|accounts?|ratings?|changes?|groups?|tokens?")
#: a number placeholder followed by a counted noun ("%(n)s games", "{seats} seats", "%(n)s free seats"); a
#: placeholder that names something (a player, a tournament, a ruleset) is not a number
NAMES = "player|tournament|ruleset|user|what|board|name|game|seat|round|place|table"
COUNT = re.compile(rf"(?P<p>%\((?!(?:{NAMES})\))\w+\)[sd]"
                   r"|\{(?!(?:player|tournament|ruleset|user|name)\})\w+\})"
                   rf"\s+(?:(?:rated|free|more|open)\s+)?(?:{COUNTED})\b")


def counts_without_plural(po: polib.POFile) -> list[str]:
    """Counts said without plural forms: a msgid that puts a number before a noun, without msgid_plural,
    whose Russian also puts a word right after that number ("{seats} мест"); a Russian label ("мест:
    {seats}") needs no agreement."""
    found = []
    for entry in po:
        if entry.obsolete or entry.msgid_plural:
            continue
        for match in COUNT.finditer(entry.msgid):
            if re.search(rf"{re.escape(match.group('p'))}\s+[а-яё]", entry.msgstr, re.IGNORECASE):
                found.append(entry.msgid)
                break
    return found


def test_every_count_in_the_catalog_has_plural_forms():
    assert counts_without_plural(polib.pofile(str(RU_PO))) == []


def test_the_plural_check_catches_a_count_without_forms():
    po = polib.POFile()
    po.append(polib.POEntry(msgid="to %(limit)s points", msgstr="до %(limit)s очков"))
    po.append(polib.POEntry(msgid="Points: %(n)s", msgstr="Очки: %(n)s"))  # a label, no count to agree with
    po.append(polib.POEntry(msgid="{n} seats taken", msgstr="занято мест: {n}"))  # said as a label in Russian
    po.append(polib.POEntry(msgid="%(n)s game", msgid_plural="%(n)s games", msgstr_plural={0: "", 1: ""}))
    assert counts_without_plural(po) == ["to %(limit)s points"]


def test_each_plural_entry_has_russian_one_few_and_many_forms():
    """1, 2, 5 and 21 each get the form Russian gives them (one for 1 and 21, few for 2, many for 5)."""
    po = polib.pofile(str(RU_PO))
    plural = [entry for entry in po if entry.msgid_plural and not entry.obsolete]
    assert len(plural) > 20
    same = [entry.msgid for entry in plural if len({entry.msgstr_plural[i] for i in (0, 1, 2)}) < 2]
    assert same == []  # at least two distinct forms (one and few may only differ from many, "5 раз"/"1 раз")
    with translation.override("ru"):
        games = {n: translation.npgettext("admin count", "%(count)s game", "%(count)s games", n) % {"count": n}
                 for n in (1, 2, 5, 21)}
        limit = {n: translation.ngettext("to %(limit)s point", "to %(limit)s points", n) % {"limit": n}
                 for n in (1, 2, 5, 21)}
    assert games == {1: "1 партия", 2: "2 партии", 5: "5 партий", 21: "21 партия"}
    assert limit == {1: "до 1 очка", 2: "до 2 очков", 5: "до 5 очков", 21: "до 21 очка"}


#: Russian nouns by plural form (one, few, many) and a number written before one of them on a page
NOUNS = [("партия", "партии", "партий"), ("очко", "очка", "очков"), ("костяшка", "костяшки", "костяшек"),
         ("игрок", "игрока", "игроков"), ("фишка", "фишки", "фишек"), ("место", "места", "мест"),
         ("тур", "тура", "туров"), ("раз", "раза", "раз"), ("событие", "события", "событий")]


def russian_form(n: int) -> int:
    if n % 10 == 1 and n % 100 != 11:
        return 0
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return 1
    return 2


def miscounted(text: str) -> list[str]:
    """"N noun" pairs in the wrong form (a number after «из» or «до» takes the genitive: not checked; a
    noun followed by a number is a label: "место 3")."""
    wrong = []
    for forms in NOUNS:
        for match in re.finditer(rf"(?<!из )(?<!до )(?<![\d,.#№])(\d+) ({'|'.join(set(forms))})\b(?! ?\d)", text):
            number, noun = int(match.group(1)), match.group(2)
            if noun != forms[russian_form(number)]:
                wrong.append(match.group(0))
    return wrong


def test_the_miscount_check_catches_a_wrong_form():
    assert miscounted("4/32 игроков · 13 партии · козёл 4 раз · 2 места · 21 партия · из 32 игроков · до 25 очков"
                      ) == ["13 партии", "32 игроков", "4 раз"]


def test_the_default_ruleset_is_a_ruleset_and_seats_count_from_one():
    from goat.engine.rulesets import DEFAULT_RULESET, seat_number

    assert DEFAULT_RULESET in RULESETS and words.RULESETS[DEFAULT_RULESET]
    assert [seat_number(s) for s in range(4)] == [1, 2, 3, 4]
    assert [words.seat(s) for s in range(4)] == ["1", "2", "3", "4"]
