"""One table for everyone who looks at it (issue 51), in a real browser: masha plays three-seat
goat-classic on the play page by clicking, while olga and petr play through the services
(whose commits publish on the live channel the server follows). At each of masha's turns the notes the
page shows are the game's events since her own last turn (draws counted, knocks and each round's end
said); at each round's end the play page's scoresheet equals the game page's, cell by cell. The game
runs until three rounds are over and at least one knock and one draw from the bazaar were shown.
"""

from __future__ import annotations

import random
import re
import time
import urllib.request
from html.parser import HTMLParser

import pytest
from test_lobby_browser import _signed_up

from testkit import gunicorn_site

pytestmark = [pytest.mark.browser, pytest.mark.realprocess, pytest.mark.database]

ROUNDS = 3
GAME_SECONDS = 240
#: the events the notes leave out (goat.games.table.NOT_NOTED) and those that end a turn (TURN_ENDS)
NOT_NOTED = {"game_created", "seed_revealed", "game_cancelled"}
TURN_ENDS = {"tile_played", "knocked", "timed_out", "resigned"}


@pytest.fixture
def site(transactional_db, tmp_path):
    from django.conf import settings

    with gunicorn_site(tmp_path, {"GOAT_LIVE_PREFIX": settings.GOAT_LIVE_PREFIX}) as served:
        yield served


def expected_notes(events, viewer: int) -> list[tuple[str, int]]:
    """(type, seq) of the notes the page should show, worked out from the game's events afresh: since
    the viewer's last turn (inclusive), a run of one seat's draws as one note at its first draw, a
    round's end before the next deal (at the last play before it)."""
    ends = [i for i, e in enumerate(events) if e.type in TURN_ENDS and e.seat == viewer]
    out, last_play, run_seat = [], None, None
    for event in events[ends[-1] if ends else 0:]:
        if event.type == "tile_drawn":
            if run_seat != event.seat:
                out.append(("tile_drawn", event.seq))
            run_seat = event.seat
            continue
        run_seat = None
        if event.type in NOT_NOTED:
            continue
        if event.type == "round_dealt" and not event.data.get("void") and last_play is not None \
                and event.data.get("round", 0) > 1:
            out.append(("round_ended", last_play))
        if event.type == "tile_played":
            last_play = event.seq
        out.append((event.type, event.seq))
    return out


class _Cells(HTMLParser):
    """The text of each cell of the table with ``id``, row by row (the game page's, as served)."""

    def __init__(self, table_id: str):
        super().__init__()
        self.table_id, self.depth, self.rows, self.cell = table_id, 0, [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id") == self.table_id:
            self.depth = 1
        elif self.depth and tag == "tr":
            self.rows.append([])
        elif self.depth and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if self.depth and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif self.depth and tag == "table":
            self.depth = 0

    def handle_data(self, data):
        if self.depth and self.cell is not None:
            self.cell.append(data)


def game_page_cells(url: str) -> list[list[str]]:
    parser = _Cells("scoresheet")
    with urllib.request.urlopen(url) as response:  # noqa: S310 - the test's own server
        parser.feed(response.read().decode())
    return parser.rows


def click_a_move(browser, choose) -> None:
    """Click the move ``choose`` picks among the enabled buttons; again if the page redrew them under the
    click (a later answer of the same version draws them anew)."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(10):
        try:
            choose(browser.find_elements("css selector", "#moves button.move:not([disabled])")).click()
            return
        except StaleElementReferenceException:
            time.sleep(0.05)
    raise AssertionError("the move buttons kept being redrawn")


PLAY_PAGE_CELLS = """return Array.from(document.querySelectorAll('#rounds tr'),
  tr => Array.from(tr.querySelectorAll('th, td'), c => c.textContent.split(/\\s+/).filter(Boolean).join(' ')))"""
PLAY_PAGE_NOTES = """return Array.from(document.querySelectorAll('#table-notes li'),
  li => [li.dataset.type, Number(li.dataset.seq), li.textContent])"""


def test_the_play_page_and_the_game_page_draw_one_scoresheet_and_the_notes_are_the_games_events(
        site, open_browser, django_user_model, browser_csp_violations):
    from goat import engine
    from goat.engine.tiles import tile_str
    from goat.games import eventstore, services
    from goat.games.models import Game

    olga, petr = (django_user_model.objects.create_user(username=n, password="domino-goat-1") for n in ("olga", "petr"))
    browser = open_browser(window_size="390,844")  # a phone
    wait = _signed_up(browser, site, "masha")
    masha = django_user_model.objects.get(username="masha")
    people = [masha, olga, petr]
    game = services.game_create(player=masha, ruleset="goat-classic", seats=3, options={"move_time": 0}).game
    browser.get(f"{site.url}/play/{game.pk}/")
    wait.until(lambda d: d.find_elements("css selector", "#table[data-live]"))
    services.game_join(game_id=game.pk, player=olga)
    services.game_join(game_id=game.pk, player=petr)
    rng = random.Random(51)
    table = browser.find_element("id", "table")

    def drawn_version() -> int:
        return int(table.get_attribute("data-version") or 0)

    seen: set[str] = set()
    compared, turns_checked, started = 0, 0, time.monotonic()
    while True:
        assert time.monotonic() - started < GAME_SECONDS, (
            f"stuck at round {compared}: {browser.find_element('id', 'table-state').text}")
        game = Game.objects.get(pk=game.pk)
        state = eventstore.state_load(game)
        if len(state.rounds) > compared:  # a round is over: one scoresheet on both pages
            wait.until(lambda d, v=game.version: drawn_version() >= v)
            shown = browser.execute_script(PLAY_PAGE_CELLS)
            served = game_page_cells(f"{site.url}/games/{game.pk}/")
            assert len(shown) == len(state.rounds) + 2  # the head, a row a round, the totals
            assert shown == served
            compared = len(state.rounds)
            if compared >= ROUNDS and {"knocked", "tile_drawn"} <= seen or game.ended:
                break
        if game.ended:
            break
        if state.turn != 0:
            tile, end = rng.choice(engine.legal_moves(state))
            services.game_play_tile(game_id=game.pk, player=people[state.turn], tile=tile_str(tile), end=end)
            continue
        # masha's turn: the page shows this version, and the notes since her last turn
        wait.until(lambda d, v=game.version: drawn_version() == v
                   and d.find_elements("css selector", "#moves button.move:not([disabled])"))
        events = eventstore.events_load(game_id=game.pk, after=max(0, game.version - 60))
        notes = browser.execute_script(PLAY_PAGE_NOTES)
        assert [(kind, seq) for kind, seq, _ in notes] == expected_notes(events, viewer=0)[-24:]
        for kind, _seq, text in notes:
            seen.add(kind)
            assert "\x02" not in text and not re.search(r"\b(tile_|round_|goat-)", text), text
            if kind == "knocked":
                assert "knocks" in text
            if kind == "tile_drawn":
                assert re.search(r"takes? \d+ tiles? from the bazaar", text), text
            if kind == "round_ended":
                assert re.match(r"Round \d+ is over: ", text), text
        turns_checked += 1
        click_a_move(browser, lambda buttons: rng.choice(buttons))
        wait.until(lambda d, v=game.version: drawn_version() > v)
    assert compared >= ROUNDS or game.ended
    assert {"knocked", "tile_drawn", "round_ended"} <= seen, seen
    assert turns_checked > 10
    assert browser_csp_violations(browser) == []


# An older server: the page carries no model and /play/{id}/table/ answers only a few of its parts.
OLD_SERVER = """
document.addEventListener("readystatechange", () => {
  if (document.readyState === "interactive") document.getElementById("table-model")?.remove();
});
const realFetch = window.fetch;
window.fetch = async (input, init) => {
  const response = await realFetch(input, init);
  if (!String(input).endsWith("/table/")) return response;
  const model = await response.json();
  const old = { version: model.version, status: model.status, line: { tiles: model.line.tiles },
                hand: model.hand, notes: [{ type: "tile_flipped", seq: 1, parts: [{ code: "tile_flipped" }] }] };
  return new Response(JSON.stringify(old), { status: 200, headers: { "Content-Type": "application/json" } });
};
"""


def test_a_model_missing_its_parts_draws_what_it_has_and_no_raw_code(site, open_browser, django_user_model,
                                                                     browser_csp_violations):
    from goat import engine
    from goat.engine.tiles import tile_str
    from goat.games import eventstore, services
    from goat.games.models import Game

    olga = django_user_model.objects.create_user(username="olga", password="domino-goat-1")
    browser = open_browser(window_size="390,844")
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": OLD_SERVER})
    wait = _signed_up(browser, site, "masha")
    masha = django_user_model.objects.get(username="masha")
    game = services.game_create(player=masha, ruleset="goat-classic", seats=2, options={"move_time": 0}).game
    services.game_join(game_id=game.pk, player=olga)
    browser.get(f"{site.url}/play/{game.pk}/")
    wait.until(lambda d: d.find_elements("css selector", "#table[data-live]"))
    assert not browser.find_elements("id", "table-model")  # the island is gone: the page has only the served HTML
    rng = random.Random(7)
    table = browser.find_element("id", "table")
    for _ in range(6):
        game = Game.objects.get(pk=game.pk)
        state = eventstore.state_load(game)
        if state.turn == 1:
            tile, end = rng.choice(engine.legal_moves(state))
            services.game_play_tile(game_id=game.pk, player=olga, tile=tile_str(tile), end=end)
            game = Game.objects.get(pk=game.pk)
            state = eventstore.state_load(game)
        # masha's turn: the line and the hand as the game has them; the buttons from the view's moves
        wait.until(lambda d, v=game.version: int(table.get_attribute("data-version") or 0) == v
                   and d.find_elements("css selector", "#moves button.move:not([disabled])"))
        line = browser.execute_script(
            "return Array.from(document.querySelectorAll('#line .tile'), t => t.dataset.tile)")
        assert line == state.table.line_str()
        text = table.text
        for raw in ("undefined", "null", "NaN", "[object", "tile_flipped", "goat-classic"):
            assert raw not in text, (raw, text)
        labels = browser.execute_script(
            "return Array.from(document.querySelectorAll('#moves button.move'), b => b.getAttribute('aria-label'))")
        assert labels and all(re.fullmatch(r"[0-6]-[0-6]", label) for label in labels), labels
        version = game.version
        click_a_move(browser, lambda buttons: buttons[0])
        wait.until(lambda d, v=version: int(table.get_attribute("data-version") or 0) > v)
    assert browser_csp_violations(browser) == []
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE" and e["source"] != "network"]
    assert not errors, errors  # no script error on the way
