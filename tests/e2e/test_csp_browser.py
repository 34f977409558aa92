"""The Content-Security-Policy in a real browser (headless Chromium, Selenium; issue 19 item 7): the
public pages, the admin (list, game page, replay with its keys) and Swagger UI work under the policy
the server sends, and raise no violation."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from played_games import played_game

pytestmark = [pytest.mark.browser]

PASSWORD = "csp-browser-password"


@pytest.fixture
def browser(open_browser):
    return open_browser(window_size="1280,1000")


def test_pages_admin_and_replay_work_under_the_policy(live_server, browser, browser_csp_violations,
                                                      django_user_model):
    import urllib.request

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    from tournaments import services as tournaments

    root = django_user_model.objects.create_superuser(username="root", password=PASSWORD)
    users = [django_user_model.objects.create_user(username=n, password="x" * 12) for n in ("ann", "ben")]
    game = played_game(users, moves=8, seed=11)
    tournament = tournaments.tournament_create(created_by=root, name="CSP cup", ruleset="goat-classic",
                                               format="swiss", table_size=2, rounds=1, max_players=8,
                                               starts_at=timezone.now() + timedelta(days=1))
    wait = WebDriverWait(browser, 15)

    policy = urllib.request.urlopen(f"{live_server.url}/leaderboards/").headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy

    def visit(path: str, ready: tuple) -> None:
        browser.get(f"{live_server.url}{path}")
        wait.until(EC.presence_of_element_located(ready))
        assert browser_csp_violations(browser) == [], path

    visit("/leaderboards/", (By.TAG_NAME, "table"))
    visit("/tournaments/", (By.LINK_TEXT, "CSP cup"))
    visit(f"/tournaments/{tournament.pk}/", (By.ID, "tournament-name"))
    # the site's stylesheet applied: the page is styled although no inline style is allowed
    assert browser.execute_script("return document.styleSheets.length") >= 1

    browser.get(f"{live_server.url}/admin/login/?next=/admin/goat/game/")
    browser.find_element(By.NAME, "username").send_keys("root")
    browser.find_element(By.NAME, "password").send_keys(PASSWORD + Keys.ENTER)
    wait.until(EC.presence_of_element_located((By.ID, "result_list")))
    assert browser_csp_violations(browser) == []

    visit(f"/admin/goat/game/{game.pk}/change/", (By.ID, "event-log"))
    verified = browser.find_element(By.ID, "verify-form")
    assert verified.value_of_css_property("padding-top") == "8px"  # audit.css, not an inline style

    visit(f"/admin/goat/game/{game.pk}/replay/?step=2", (By.ID, "replay-svg"))
    for expected in (3, 4):  # replay.js, a file the policy allows, steps on the arrow key
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        wait.until(lambda d, n=expected: d.find_element(By.ID, "step-number").text == str(n))
    assert browser_csp_violations(browser) == []
    background = browser.find_element(By.ID, "replay-svg").value_of_css_property("background-color")
    assert background in ("rgb(31, 111, 63)", "rgba(31, 111, 63, 1)")  # replay.css applied

    visit("/api/docs/", (By.CSS_SELECTOR, ".swagger-ui .info"))  # Swagger UI renders the schema
