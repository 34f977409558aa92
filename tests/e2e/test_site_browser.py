"""The public site in a real browser (headless Chromium from Debian's package, Selenium) against the
production ASGI application (uvicorn serving goat.asgi, the streams included) on PostgreSQL and
Redis: a running game's page shows a move made by another client without reloading (to a signed-in
spectator and to an anonymous visitor, neither of whom gets a tile of any hand), a tournament's page
shows a table's end, the replay steps forward and back, the language switch works, and no page raises
a Content-Security-Policy violation. One browser for all of it.

"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone
from factories import FAST

pytestmark = [pytest.mark.browser, pytest.mark.database]  # a real Celery worker, on PostgreSQL + Redis

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def site(uvicorn_site):
    return uvicorn_site


def _tiles(driver, css: str) -> list[str]:
    """The names of the tiles drawn under ``css``, read in one go (the live part may be swapped meanwhile)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.getAttribute('aria-label'));",
        f"{css} .tile[role=img]")


def test_the_site_live_and_replayed_in_a_browser(site, open_browser, browser_csp_violations, django_user_model):
    from django.test import Client
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    from goat.games import eventstore
    from goat.games import services as games
    from goat.games.computer import stand_ins_play
    from played_games import played_game
    from tournaments import services as tournaments

    ann, ben, cat, dan, eve = (django_user_model.objects.create_user(username=n, password="x" * 12)
                               for n in ("ann", "ben", "cat", "dan", "eve"))
    running = played_game([ann, ben], 2, seed=3)
    ended = games.game_create(player=ann, ruleset="goat-classic", seats=2, options=dict(FAST)).game
    games.game_join(game_id=ended.pk, player=ben)
    stand_ins_play(everyone=True, game_ids=[ended.pk], until_done=True, seed=4)
    director = django_user_model.objects.create_user(username="director", password="x" * 12, is_staff=True)
    cup = tournaments.tournament_create(created_by=director, name="Browser cup", ruleset="goat-classic",
                                        options=dict(FAST), format="swiss", rounds=1, table_size=2,
                                        starts_at=timezone.now() - timedelta(seconds=1), max_players=8)
    for player in (cat, dan):
        tournaments.tournament_register(tournament_id=cup.pk, player=player)
    tournaments.tournaments_start_due()
    table_game = cup.tables.get().game_id

    browser = open_browser(window_size="1280,1000")
    # a live page redraws what a stream changes: an element found just before a redraw is stale, and
    # the next poll finds the new one
    wait = WebDriverWait(browser, 20, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))
    # eve, signed in on the site, sits at no table: a spectator
    client = Client()
    client.force_login(eve)
    browser.get(f"{site}/health/")
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    browser.add_cookie({"name": settings.SESSION_COOKIE_NAME, "value": session, "path": "/"})

    def visit(path: str, ready: str) -> None:
        browser.get(f"{site}{path}")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ready))
        assert browser_csp_violations(browser) == [], path

    # a running game: another client's move appears without a reload, and no hand is ever drawn
    visit(f"/games/{running.pk}/", "#live[data-live-heard]")  # its stream's state came
    browser.execute_script("window.__sameDocument = true;")
    before = _tiles(browser, "#line")
    state = eventstore.state_load(running)
    hands = set(state.hands_str()[0]) | set(state.hands_str()[1])
    assert set(before) == set(state.table.line_str()) and not browser.find_elements(By.ID, "hand")
    from goat import engine
    from goat.engine.tiles import tile_str

    tile, end = engine.legal_moves(state)[0]
    games.game_play_tile(game_id=running.pk, player=(ann, ben)[state.turn], tile=tile_str(tile), end=end)
    wait.until(lambda d: len(_tiles(d, "#line")) == len(before) + 1)
    assert browser.execute_script("return window.__sameDocument === true")  # updated in place, not reloaded
    running.refresh_from_db()
    assert _tiles(browser, "#line") == list(eventstore.state_load(running).table.line_str())
    assert not (set(_tiles(browser, "body")) - set(_tiles(browser, "#line"))) & hands
    assert browser_csp_violations(browser) == []

    # the same game seen by an anonymous visitor (no session): live too, and no tile of any hand in the page
    browser.delete_cookie(settings.SESSION_COOKIE_NAME)
    visit(f"/games/{running.pk}/", "#live[data-live-heard]")
    assert browser.get_cookie(settings.SESSION_COOKIE_NAME) is None
    browser.execute_script("window.__sameDocument = true;")
    state = eventstore.state_load(running)
    before = _tiles(browser, "#line")
    tile, end = engine.legal_moves(state)[0]
    games.game_play_tile(game_id=running.pk, player=(ann, ben)[state.turn], tile=tile_str(tile), end=end)
    wait.until(lambda d: len(_tiles(d, "#line")) == len(before) + 1)
    assert browser.execute_script("return window.__sameDocument === true")
    running.refresh_from_db()
    state = eventstore.state_load(running)
    line = list(state.table.line_str())
    assert _tiles(browser, "#line") == line
    hands = {label for seat in range(state.seats) for label in state.hands_str()[seat]}
    labels = set(re.findall(r'aria-label="([0-6]-[0-6])"', browser.page_source))  # every tile named in the page
    assert labels == set(line) and not labels & hands and not browser.find_elements(By.ID, "hand")
    assert browser_csp_violations(browser) == []
    browser.add_cookie({"name": settings.SESSION_COOKIE_NAME, "value": session, "path": "/"})  # eve again

    # a tournament: its table's end shows up live
    visit(f"/tournaments/{cup.pk}/", "#live[data-live-heard]")
    browser.execute_script("window.__sameDocument = true;")
    card = f".table-card[data-game='{table_game}'] .badge"
    # read in one script: the live page may draw the card again between finding it and reading it
    assert browser.execute_script("return document.querySelector(arguments[0]).className", card).endswith("running")
    stand_ins_play(everyone=True, game_ids=[table_game], until_done=True, seed=5)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, card).get_attribute("class").split()[-1]
               in ("finished", "interrupted"))
    assert browser.execute_script("return window.__sameDocument === true")
    badge = "#tournament-name .badge"
    wait.until(lambda d: "finished" in d.find_element(By.CSS_SELECTOR, badge).get_attribute("class"))
    ranks = browser.execute_script(
        "return Array.from(document.querySelectorAll('#standings tbody tr td:first-child')).map(td => td.textContent);")
    assert ranks == ["1", "2"]
    assert browser_csp_violations(browser) == []

    # an ended game: the replay steps forward and back, every hand face up
    visit(f"/games/{ended.pk}/?step=5", "#replay")
    assert browser.find_element(By.ID, "replay-step").text == "5"
    assert len(_tiles(browser, "#replay .hand")) > 0 and browser.find_element(By.ID, "verification")
    browser.find_element(By.ID, "replay-next").click()
    wait.until(lambda d: d.find_element(By.ID, "replay-step").text == "6")
    browser.find_element(By.ID, "replay-prev").click()
    wait.until(lambda d: d.find_element(By.ID, "replay-step").text == "5")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    wait.until(lambda d: d.find_element(By.ID, "replay-step").text == "6")
    assert browser.current_url.endswith("?step=6")
    assert "verify game-" in browser.find_element(By.ID, "verify-command").text
    assert browser_csp_violations(browser) == []

    # every other page, under the policy
    visit("/", "#top")
    visit("/players/ann/", "#games")
    visit("/tournaments/", "#tournaments")
    visit("/leaderboards/", "#leaderboard")

    # the language switch: the same page in Russian
    browser.find_element(By.CSS_SELECTOR, "#language-switch select option[value='ru']").click()
    browser.find_element(By.CSS_SELECTOR, "#language-switch button").click()
    # the form's post navigates: an element read while the old document is swapped for the new one
    # belongs to neither (Chromium's "Node with given id does not belong to the document"); look again
    WebDriverWait(browser, 20, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.find_element(By.ID, "nav-tournaments").text == "Турниры")
    assert "/leaderboards/" in browser.current_url
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ru"
    visit(f"/games/{ended.pk}/", "#fairness")
    assert "Честная раздача" in browser.find_element(By.ID, "fairness").text
