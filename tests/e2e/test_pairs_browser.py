"""A goat-pairs game on a phone (issue 53): headless Chromium (Debian's package, Selenium) at 390 x 844
plays a whole game of pairs against three computers, one of them its partner, by clicking the legal
moves the server offers, on the production server (gunicorn with goat's uvicorn workers) and a real
Celery worker on Redis that plays the computers' moves (GOAT_COMPUTER_THINK_SECONDS=0).

The table marks the partner (the seat opposite) on the phone, the result names the losing pair («Goats:
A and B» with the margin) and the scoresheet keeps one column per pair with each partner's share.
"""

from __future__ import annotations

import re
import time

import pytest
from django.conf import settings

pytestmark = [pytest.mark.browser, pytest.mark.database]  # a real Celery worker, on PostgreSQL + Redis

GAME_SECONDS = 240
PASSWORD = "domino-goat-1"
#: a short game: a few rounds of seven tiles each (the pair at 30 points are the goats)
OPTIONS = {"limit": 30, "move_time": 0}


def test_a_pairs_game_with_a_computer_partner_is_played_to_the_end_on_a_phone(computer_site, open_browser,
                                                                             django_user_model, browser_csp_violations):
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from goat.games import services

    browser = open_browser(window_size="390,844")
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    wait = WebDriverWait(browser, 30, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))
    browser.get(f"{computer_site.url}/health/")
    browser.add_cookie({"name": settings.LANGUAGE_COOKIE_NAME, "value": "en", "path": "/"})
    browser.get(f"{computer_site.url}/play/")  # signed up as a person does (the server's own sessions and hashers)
    browser.find_element(By.ID, "id_signup-username").send_keys("masha")
    browser.find_element(By.ID, "id_signup-password").send_keys(PASSWORD)
    browser.find_element(By.ID, "signup-submit").click()
    wait.until(lambda d: d.find_elements(By.ID, "whoami"))
    # the game made by the services: a short limit (the play page's form offers the preset's)
    masha = django_user_model.objects.get(username="masha")
    game = services.game_create(player=masha, ruleset="goat-pairs", seats=4, options=OPTIONS, computer_players=3,
                                computer_level="strong").game
    browser.get(f"{computer_site.url}/play/{game.pk}/")
    table = wait.until(lambda d: d.find_element(By.ID, "table"))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hand .tile"))

    # the partner, the seat opposite, is marked on the phone: a class the style draws, and words
    seats = browser.execute_script(
        "return Array.from(document.querySelectorAll('#seats li'), li => [li.dataset.seat, li.dataset.team, "
        "li.classList.contains('partner'), li.innerText])")
    assert [(s[0], s[1], s[2]) for s in seats] == [("0", "0", False), ("1", "1", False), ("2", "0", True),
                                                   ("3", "1", False)], seats
    assert "your partner" in seats[2][3] and "computer" in seats[2][3]
    border = browser.execute_script(
        "return getComputedStyle(document.querySelector('#seats li.partner')).borderLeftWidth")
    assert border == "6px"

    clicks, started = 0, time.monotonic()
    while not browser.find_elements(By.ID, "result"):
        assert time.monotonic() - started < GAME_SECONDS, computer_site.stuck(browser, game.pk, clicks)
        buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button.move:not([disabled])")
        if not buttons:
            time.sleep(0.1)  # the computers' turns (or the answer to the last click) are on their way
            continue
        version = int(table.get_attribute("data-version"))
        try:
            buttons[0].click()
        except StaleElementReferenceException:
            continue
        clicks += 1
        wait.until(lambda d, seen=version: int(table.get_attribute("data-version")) > seen)

    game.refresh_from_db()
    assert game.ended and clicks >= 1
    wait.until(lambda d: "Goats:" in d.find_element(By.ID, "result").text)
    goats = sorted(game.result["goats"])
    assert goats in ([0, 2], [1, 3])
    line = browser.find_element(By.ID, "result-goats").text
    assert re.fullmatch(r"Goats: \S.* and \S.* \((a dry goat, )?by \d+ points?\)", line), line
    if 0 in goats:
        assert "masha" in line
    # the scoresheet: one column per pair, each round's cell with both partners' shares
    heads = browser.execute_script(
        "return Array.from(document.querySelectorAll('#rounds thead th[data-seat]'), th => th.dataset.seat)")
    assert heads == ["0", "1"]
    shares = browser.execute_script(
        "return Array.from(document.querySelectorAll('#rounds .partners-share'), s => s.innerText)")
    assert shares and all(" · " in share for share in shares)
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")
    assert browser_csp_violations(browser) == []
