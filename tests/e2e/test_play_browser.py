"""The play page in a real browser (issue 27 item 5): headless Chromium (Debian's package, Selenium) on a
phone-sized window on a slow network signs up on /play/, starts a game against one computer, plays it to
the end by clicking the legal moves the server offers, sees the result and opens the replay.

The server is the production one (gunicorn with goat's uvicorn workers, so the streams stream) on
the test's PostgreSQL, and a real Celery worker on Redis plays the computer's moves
(GOAT_COMPUTER_THINK_SECONDS=0). The game is two-seat domino-3rounds without a clock: three short
rounds, a few dozen clicks.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.database]  # a real Celery worker, on PostgreSQL + Redis

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "domino-goat-1"
GAME_SECONDS = 60


# A phone on a slow network: each answer to a move reaches the page SLOW_ANSWER_MS after the server
# sent it, so the stream's update with the computer's reply (a later version) is drawn first, while
# the move is still on its way and its buttons are disabled; the page must enable them again.
SLOW_ANSWER_MS = 400
SLOW_MOVE_ANSWERS = """
const realFetch = window.fetch;
window.fetch = async (input, init) => {
  const response = await realFetch(input, init);
  if (init && init.method === "POST" && String(input).endsWith("/moves/")) {
    await new Promise((resolve) => setTimeout(resolve, SLOW_ANSWER_MS));
  }
  return response;
};
""".replace("SLOW_ANSWER_MS", str(SLOW_ANSWER_MS))


@pytest.fixture
def browser(open_browser):
    driver = open_browser(window_size="390,844")  # a phone
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SLOW_MOVE_ANSWERS})
    return driver


def test_sign_up_play_a_computer_to_the_end_by_clicking_and_open_the_replay(computer_site, browser,
                                                                           browser_csp_violations):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    wait = WebDriverWait(browser, 20)
    browser.get(f"{computer_site.url}/play/")
    browser.find_element(By.ID, "id_signup-username").send_keys("masha")
    browser.find_element(By.ID, "id_signup-password").send_keys(PASSWORD)
    browser.find_element(By.ID, "signup-submit").click()
    assert wait.until(EC.presence_of_element_located((By.ID, "whoami"))).text == "masha"

    submit = wait.until(EC.element_to_be_clickable((By.ID, "new-game-submit")))  # enabled by the script
    Select(browser.find_element(By.ID, "ng-ruleset")).select_by_value("domino-3rounds")
    Select(browser.find_element(By.ID, "ng-seats")).select_by_value("2")
    Select(browser.find_element(By.ID, "ng-move-time")).select_by_value("0")
    Select(browser.find_element(By.ID, "ng-computers")).select_by_value("1")
    Select(browser.find_element(By.ID, "ng-level")).select_by_value("strong")
    submit.click()

    table = wait.until(EC.presence_of_element_located((By.ID, "table")))
    game_id = int(table.get_attribute("data-game-id"))
    assert browser.current_url.endswith(f"/play/{game_id}/")
    wait.until(lambda d: "computer" in d.find_element(By.ID, "seats").text)  # the computer took its seat
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hand .tile"))
    # each tile drawn is named, e.g. "3-5" (read in one go: the stream may redraw the hand meanwhile)
    names = browser.execute_script(
        "return Array.from(document.querySelectorAll('#hand .tile, #line .tile'), t => t.getAttribute('aria-label'))")
    assert names and all(re.fullmatch(r"[0-6]-[0-6]", name) for name in names), names

    clicks, started = 0, time.monotonic()
    while not browser.find_elements(By.ID, "result"):
        assert time.monotonic() - started < GAME_SECONDS, computer_site.stuck(browser, game_id, clicks)
        buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button.move:not([disabled])")
        if not buttons:
            time.sleep(0.1)  # the computer's turn (or the answer to the last click) is on its way
            continue
        version = int(table.get_attribute("data-version"))
        try:
            label = buttons[0].get_attribute("aria-label")
            assert label.startswith("Play ") and buttons[0].find_element(By.CSS_SELECTOR, ".tile")
            buttons[0].click()
        except StaleElementReferenceException:
            continue  # the table was redrawn under the click: look again
        clicks += 1
        # the move's answer (or the stream) draws a later version; it may be my turn again at once
        # (the computer knocked, or I lead the next round)
        wait.until(lambda d, seen=version: int(table.get_attribute("data-version")) > seen)

    assert clicks >= 3  # at least one tile a round
    result = browser.find_element(By.ID, "result")
    assert "The game is finished" in result.text and "All rounds are played." in result.text
    assert "Unrated game" in result.text
    rounds = "return Array.from(document.querySelectorAll('#rounds tr.round-result'), r => r.dataset.round)"
    wait.until(lambda d: d.execute_script(rounds) == ["1", "2", "3"])  # the scoresheet, fetched at the end
    # every name is a link: the winners, the rounds' enders, the scoresheet's columns
    links = ("return ['#result-winners a', '#rounds tr.round-result a', '#rounds thead a'].map(q => "
             "Array.from(document.querySelectorAll(q), a => new URL(a.href).pathname))")
    winners, enders, columns = browser.execute_script(links)
    assert winners and enders and set(columns) == {"/players/masha/", "/players/computer-1/"}
    assert {*winners, *enders} <= set(columns)
    assert browser.find_element(By.ID, "rematch").is_displayed()
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")
    assert browser_csp_violations(browser) == []

    replay = browser.find_element(By.ID, "replay-link")
    assert replay.is_displayed()
    replay.click()
    wait.until(lambda d: str(game_id) in d.current_url and "/play/" not in d.current_url)
    assert "masha" in browser.find_element(By.TAG_NAME, "body").text
