"""The admin replay in a real browser (headless Chromium from Debian's package, driven by Selenium):
log in as a superuser, open a replay, press → ten times and see the step and the table change."""

from __future__ import annotations

import pytest

from goat.games import eventstore
from played_games import played_game

pytestmark = [pytest.mark.browser]

PASSWORD = "replay-audit-password"


@pytest.fixture
def browser(open_browser):
    return open_browser(window_size="1280,1000")


def test_replay_steps_forward_with_the_arrow_key(live_server, browser, django_user_model):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    django_user_model.objects.create_superuser(username="root", password=PASSWORD)
    users = [django_user_model.objects.create_user(username=n, password="x" * 12) for n in ("ann", "ben")]
    game = played_game(users, moves=12, seed=7)
    assert game.version >= 12

    wait = WebDriverWait(browser, 15)
    browser.get(f"{live_server.url}/admin/login/?next=/admin/goat/game/{game.pk}/replay/?step=2")
    browser.find_element(By.NAME, "username").send_keys("root")
    browser.find_element(By.NAME, "password").send_keys(PASSWORD + Keys.ENTER)
    wait.until(EC.presence_of_element_located((By.ID, "replay-svg")))

    def step() -> int:
        return int(browser.find_element(By.ID, "step-number").text)

    assert step() == 2
    svg_before = browser.find_element(By.ID, "replay-svg").get_attribute("outerHTML")
    for expected in range(3, 13):
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        wait.until(lambda d, n=expected: d.find_element(By.ID, "step-number").text == str(n))
    assert step() == 12
    assert browser.current_url.endswith("?step=12")
    svg_after = browser.find_element(By.ID, "replay-svg").get_attribute("outerHTML")
    assert svg_after != svg_before
    line = browser.find_elements(By.CSS_SELECTOR, "#replay-svg g.line g.tile")
    assert [t.get_attribute("data-tile") for t in line] == eventstore.state_rebuild(game, upto=12).table.line_str()

    browser.find_element(By.ID, "nav-prev").click()
    wait.until(lambda d: d.find_element(By.ID, "step-number").text == "11")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME)
    wait.until(lambda d: d.find_element(By.ID, "step-number").text == "0")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait.until(lambda d: d.find_element(By.ID, "step-number").text == str(game.version))
