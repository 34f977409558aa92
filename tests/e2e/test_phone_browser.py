"""The table on a phone (issue 34 item 4), in headless Chromium (Debian's package, Selenium) at 390 x 844
against the production ASGI application (uvicorn serving goat.asgi) on the test database.

In a four-seat game the player to move sees their hand and the legal-move buttons on the first screen
(at the first turn, with the whole hand, and late in a round, with a long line); no page of the table
(the play page, a running game's page, an ended game's page with its replay and its fairness panel,
a tournament's page) is wider than the phone, a long username and a long tournament name included;
and every text on the green table has a contrast of at least 4.5:1 (WCAG AA), computed from the
computed styles of the page.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

pytestmark = [pytest.mark.browser, pytest.mark.realprocess]

REPO = Path(__file__).resolve().parents[2]
PHONE = "500,844"
#: a username and a tournament name without a break in them, as long as a phone is wide and more
LONG_NAME = "konstantin_konstantinopolsky_1987"
LONG_TOURNAMENT = "Чемпионат_Северо-Западного_федерального_округа_по_козлу_2026"
AA = 4.5
#: the server seed of every game this test makes: a deal is random otherwise, and once in about forty runs
#: one ended the first round of the four-seat game before its line was 14 tiles long
SERVER_SEED = f"{1:064x}"

#: [element, text, colour, background, contrast] of every element with text of its own under arguments[0]
CONTRASTS = """
function channel(v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }
function luminance(colour) {
  const [r, g, b] = colour.match(/[\\d.]+/g).map(Number);
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}
function background(element) {
  for (let e = element; e; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor, parts = c.match(/[\\d.]+/g);
    if (parts && (parts.length < 4 || Number(parts[3]) > 0)) return c;
  }
  return "rgb(255, 255, 255)";
}
const out = [];
for (const root of document.querySelectorAll(arguments[0])) {
  for (const el of [root, ...root.querySelectorAll("*")]) {
    const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    const fg = getComputedStyle(el).color, bg = background(el);
    const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
    out.push([el.tagName + "." + el.className, el.textContent.trim().slice(0, 40), fg, bg, (hi + 0.05) / (lo + 0.05)]);
  }
}
return out;
"""


def _low_contrast(browser, css: str) -> list:
    texts = browser.execute_script(CONTRASTS, css)
    assert texts, f"no text under {css}"
    return [t for t in texts if t[4] < AA]


def _overflow(browser) -> int:
    """How many CSS pixels the page is wider than the window (0: none)."""
    return browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")


def _bottoms(browser, css: str) -> list[float]:
    return browser.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => e.getBoundingClientRect().bottom)", css)


def test_a_four_seat_table_plays_on_a_phone_without_scrolling(uvicorn_site, open_browser, django_user_model,
                                                               browser_csp_violations, monkeypatch):
    from django.test import Client
    from factories import finished_game, play, start_game
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from goat.engine import deal as dealing
    from goat.games import eventstore
    from tournaments import services as tournaments

    monkeypatch.setattr(dealing, "new_server_seed", lambda: SERVER_SEED)  # the games are made in this process
    site = uvicorn_site
    users = [django_user_model.objects.create_user(username=n, password="x" * 12)
             for n in (LONG_NAME, "ann", "ben", "cat")]
    game = start_game(users, options={"limit": 101, "move_time": 0})
    browser = open_browser(window_size=PHONE)
    # the window has a minimum width: the phone's viewport is emulated, 390 x 844 CSS pixels, touch
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    wait = WebDriverWait(browser, 20, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))
    browser.get(f"{site}/health/")

    def sign_in(user) -> None:
        client = Client()
        client.force_login(user)
        browser.delete_all_cookies()
        session = client.cookies[settings.SESSION_COOKIE_NAME].value
        browser.add_cookie({"name": settings.SESSION_COOKIE_NAME, "value": session, "path": "/"})

    def check_table_of_the_player_to_move(what: str) -> None:
        """In English and in Russian (longer words): the hand and the moves on the first screen."""
        game.refresh_from_db()
        state = eventstore.state_load(game)
        sign_in(users[state.turn])
        for language in ("en", "ru"):
            browser.add_cookie({"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "path": "/"})
            browser.get(f"{site}/play/{game.pk}/")
            assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == language
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#moves button.move")
                       and len(d.find_elements(By.CSS_SELECTOR, "#hand .tile")) == len(state.hands_str()[state.turn]))
            where = f"{what} ({language})"
            height = browser.execute_script("return window.innerHeight")
            assert (browser.execute_script("return window.innerWidth"), height) == (390, 844)
            assert browser.execute_script("return window.scrollY") == 0
            hand, moves = _bottoms(browser, "#hand .tile"), _bottoms(browser, "#moves button.move")
            assert max(hand) <= height, f"{where}: the hand ends at {max(hand)} px, below the first screen"
            assert max(moves) <= height, f"{where}: a move button ends at {max(moves)} px, below the first screen"
            assert _overflow(browser) <= 0, where
            assert _low_contrast(browser, "#table .felt") == [], where
            assert browser_csp_violations(browser) == [], where

    check_table_of_the_player_to_move("the first turn")
    while True:  # late in the first round: a long line, the player to move with a move to make
        game.refresh_from_db()
        state = eventstore.state_load(game)
        if state.table is not None and len(state.table.line) >= 14 or game.ended:
            break
        play(game, users, seed=11, max_moves=1)
    assert not game.ended and state.round_no == 1
    check_table_of_the_player_to_move("a line of 14 tiles")

    # the running game's page, to a spectator: the line on the felt, readable, no wider than the phone
    browser.delete_all_cookies()
    browser.get(f"{site}/games/{game.pk}/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#line .tile"))
    assert _overflow(browser) <= 0 and _low_contrast(browser, ".felt") == []

    # an ended game's page: the replay on the felt and the fairness panel's hex strings wrap
    ended = finished_game(users[:2], options={"limit": 25, "move_time": 0}, seed=5)
    browser.get(f"{site}/games/{ended.pk}/?step=12")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#replay-line .tile"))
    assert _overflow(browser) <= 0, "the fairness panel or the replay is wider than the phone"
    assert _low_contrast(browser, ".felt") == []
    assert browser.find_element(By.ID, "server-seed").size["width"] <= 390

    # a tournament with a long name and a long username
    director = django_user_model.objects.create_user(username="director", password="x" * 12, is_staff=True)
    cup = tournaments.tournament_create(created_by=director, name=LONG_TOURNAMENT, ruleset="goat-classic",
                                        options={"limit": 25, "move_time": 0}, format="swiss", rounds=1,
                                        table_size=2, starts_at=timezone.now() - timedelta(seconds=1), max_players=8)
    for player in users[:2]:
        tournaments.tournament_register(tournament_id=cup.pk, player=player)
    tournaments.tournaments_start_due()
    for path in (f"/tournaments/{cup.pk}/", "/tournaments/", f"/players/{LONG_NAME}/", "/"):
        browser.get(f"{site}{path}")
        wait.until(lambda d: d.find_elements(By.TAG_NAME, "main"))
        assert _overflow(browser) <= 0, path
