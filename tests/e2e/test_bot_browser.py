"""A person challenges the example bot (examples/goat_bot.py) from the play page in Chromium and they
play a whole game, over the real ``python manage.py run`` (docs/api.md "Write a bot"). The person
opens the bot's player page, follows "Challenge to a game" to the play page's challenge form (the
bot's name filled in), sends a two-seat domino-3rounds challenge without a clock; the bot hears it on
its stream and accepts, the page goes to the table, and the person clicks legal moves until the
result. A phone-sized window: the challenge form fits it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from testkit import RUN_THROTTLES_OFF, ManageRun

pytestmark = [pytest.mark.browser]  # a real `manage.py run` on its own embedded defaults, and Chromium

REPO = Path(__file__).resolve().parents[2]
BOT = REPO / "examples" / "goat_bot.py"
PASSWORD = "domino-goat-1"
GAME_SECONDS = 120


def _bot_token(run) -> str:
    sys.path.insert(0, str(REPO / "tests" / "games"))
    try:
        from test_streams_run import Client
    finally:
        sys.path.pop(0)
    return Client(run).player("robo")


def test_a_person_challenges_the_example_bot_from_the_play_page_and_they_play_a_whole_game(tmp_path, open_browser,
                                                                                          browser_csp_violations):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    run = ManageRun(tmp_path, args=["--web-workers", "1", "--worker-concurrency", "1"], migrated=True,
                    env={"GOAT_STREAM_KEEPALIVE_SECONDS": "1", **RUN_THROTTLES_OFF})
    bot = None
    try:
        run.wait_healthy(90)
        bot = subprocess.Popen([sys.executable, str(BOT), run.base, _bot_token(run), "--games", "1",
                                "--rulesets", "domino-3rounds"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert bot.stdout.readline().startswith("bot robo ready")
        browser = open_browser(window_size="390,844")  # a phone
        wait = WebDriverWait(browser, 30)
        browser.get(f"{run.base}/play/")
        browser.find_element(By.ID, "id_signup-username").send_keys("masha")
        browser.find_element(By.ID, "id_signup-password").send_keys(PASSWORD)
        browser.find_element(By.ID, "signup-submit").click()
        wait.until(EC.presence_of_element_located((By.ID, "whoami")))

        browser.get(f"{run.base}/players/robo/")
        assert "bot" in browser.find_element(By.ID, "player-bot").text
        browser.find_element(By.ID, "player-challenge").click()
        submit = wait.until(EC.element_to_be_clickable((By.ID, "challenge-submit")))  # enabled by the script
        assert browser.find_element(By.ID, "ch-opponents").get_attribute("value") == "robo"
        wait.until(lambda d: d.find_element(By.ID, "challenges").get_attribute("data-live") == "true")
        Select(browser.find_element(By.ID, "ch-ruleset")).select_by_value("domino-3rounds")
        Select(browser.find_element(By.ID, "ch-move-time")).select_by_value("0")
        browser.find_element(By.ID, "ch-rated").click()  # unrated
        assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")
        submit.click()

        table = WebDriverWait(browser, 60).until(EC.presence_of_element_located((By.ID, "table")))
        game_id = int(table.get_attribute("data-game-id"))
        assert browser.current_url.endswith(f"/play/{game_id}/")
        wait.until(lambda d: "robo" in d.find_element(By.ID, "seats").text)

        clicks, started = 0, time.monotonic()
        while not browser.find_elements(By.ID, "result"):  # the table's result box, drawn once it ended
            assert time.monotonic() - started < GAME_SECONDS, (clicks, run.output(3000))
            buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button.move:not([disabled])")
            if not buttons:
                time.sleep(0.1)  # the bot's turn (or the answer to the last click) is on its way
                continue
            version = int(table.get_attribute("data-version"))
            try:
                buttons[0].click()
            except StaleElementReferenceException:
                continue
            clicks += 1
            wait.until(lambda d, seen=version: int(table.get_attribute("data-version")) > seen)
        assert clicks >= 3
        result = browser.find_element(By.ID, "result")
        assert "The game is finished" in result.text and "All rounds are played." in result.text
        assert browser_csp_violations(browser) == []
        output = bot.communicate(timeout=60)[0]
        assert bot.returncode == 0 and "accepted challenge" in output and f"game {game_id} finished" in output, output
    finally:
        if bot is not None and bot.poll() is None:
            bot.kill()
        run.stop()
