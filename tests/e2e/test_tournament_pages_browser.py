"""The public tournament pages in a real browser (headless Chromium from Debian's package, Selenium):
the list links to a tournament, its page shows the standings and links to the leaderboards."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser]


@pytest.fixture
def browser(open_browser):
    return open_browser(window_size="390,844")  # a phone


def test_browse_from_the_list_to_a_tournament_and_on_to_the_leaderboards(live_server, browser, django_user_model):
    from datetime import timedelta

    from django.utils import timezone
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    from goat.games.computer import stand_ins_play
    from tournaments import services

    director = django_user_model.objects.create_user(username="director", password="x" * 12, is_staff=True)
    players = [django_user_model.objects.create_user(username=f"bot{i}", password="x" * 12) for i in range(4)]
    tournament = services.tournament_create(
        created_by=director, name="Browser swiss", ruleset="goat-classic", options={"limit": 25, "move_time": 0},
        format="swiss", rounds=1, table_size=2, starts_at=timezone.now() - timedelta(seconds=1), max_players=8)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    services.tournaments_start_due()
    stand_ins_play(until_done=True, seed=9)

    # a live page redraws what a stream changes: an element found just before a redraw is stale, and
    # the next poll finds the new one
    wait = WebDriverWait(browser, 15, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))
    browser.get(f"{live_server.url}/tournaments/")
    link = wait.until(EC.element_to_be_clickable((By.LINK_TEXT, "Browser swiss")))
    # the stylesheet is served and applied (the header is the accent colour)
    header = browser.find_element(By.CSS_SELECTOR, "header.top")
    assert header.value_of_css_property("background-color") in ("rgba(47, 111, 79, 1)", "rgb(47, 111, 79)")
    # the logo is an image that loads, not a glyph Debian's default fonts lack (an emoji drew a box)
    logo = browser.find_element(By.CSS_SELECTOR, "header.top .brand img")
    assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", logo)
    assert "\U0001F410" not in browser.find_element(By.TAG_NAME, "body").text
    link.click()

    wait.until(EC.presence_of_element_located((By.ID, "standings")))
    assert browser.current_url.endswith(f"/tournaments/{tournament.pk}/")
    assert "Browser swiss" in browser.find_element(By.ID, "tournament-name").text
    names = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#standings td.player")]
    assert sorted(names) == sorted(p.username for p in players)
    ranks = [row.find_element(By.CSS_SELECTOR, "td").text
             for row in browser.find_elements(By.CSS_SELECTOR, "#standings tbody tr")]
    assert ranks == ["1", "2", "3", "4"]
    # readable on a phone: the page does not scroll sideways
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")

    browser.find_element(By.ID, "to-leaderboards").click()
    board = wait.until(EC.presence_of_element_located((By.ID, "leaderboard")))
    assert "/leaderboards/" in browser.current_url
    text = board.text
    assert all(p.username in text for p in players)
