"""Wide tables on a phone (issue 51 item 4), in headless Chromium at 390 x 844: the scoresheet of a
four-seat game, a tournament's standings and crosstable, the leaderboards and a player's tables either
fit the phone or say that they scroll (a visible cue line before the box, goat/web/static/site/scroll.js);
nothing is cut silently, and no page is wider than the phone."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.realprocess]

#: per `.scroll` box: [its first table's id, content width, box width, whether a visible cue line precedes it]
BOXES = """
return Array.from(document.querySelectorAll(".scroll"), (box) => {
  const cue = box.previousElementSibling;
  const shown = Boolean(cue && cue.classList.contains("scroll-cue") && cue.getClientRects().length
    && cue.textContent.trim().length > 3);
  const table = box.querySelector("table");
  return [table ? table.id || table.className : "", box.scrollWidth, box.clientWidth, shown];
});
"""


def test_every_wide_table_fits_a_phone_or_says_it_scrolls(uvicorn_site, open_browser, django_user_model):
    from django.conf import settings
    from factories import finished_game, make_tournament, play
    from selenium.webdriver.support.ui import WebDriverWait

    from goat.games.models import Game

    users = [django_user_model.objects.create_user(username=n, password="x" * 12)
             for n in ("konstantin_konstantinopolsky", "ann_annushkina", "ben_benediktov", "cat_ekaterina")]
    game = finished_game(users, options={"limit": 60, "move_time": 0}, seed=3)
    cup = make_tournament(name="Кубок", players=users, rounds=2)
    for _ in range(3):
        for table_game in Game.objects.filter(status="running"):
            seated = [s.player for s in table_game.seat_set.select_related("player").order_by("seat")]
            play(table_game, seated, seed=table_game.pk)
    browser = open_browser(window_size="500,844")
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    wait = WebDriverWait(browser, 20)
    browser.get(f"{uvicorn_site}/health/")
    for language in ("en", "ru"):
        browser.add_cookie({"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "path": "/"})
        for path in (f"/games/{game.pk}/", f"/tournaments/{cup.pk}/", "/leaderboards/",
                     f"/players/{users[0].username}/"):
            browser.get(f"{uvicorn_site}{path}")
            wait.until(lambda d: d.execute_script("return document.readyState") == "complete")
            wait.until(lambda d: all(fits <= box + 1 or cue for _, fits, box, cue in d.execute_script(BOXES)))
            boxes = browser.execute_script(BOXES)
            assert boxes, path
            cut = [b for b in boxes if b[1] > b[2] + 1 and not b[3]]
            assert cut == [], (language, path, cut)
            assert browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth") <= 0
    # the four-seat scoresheet itself fits a phone (a cell's round points above its running total)
    browser.get(f"{uvicorn_site}/games/{game.pk}/")
    sheet = [b for b in browser.execute_script(BOXES) if b[0] == "scoresheet"]
    assert sheet and sheet[0][1] <= sheet[0][2] + 1, sheet
