"""The play page's live parts in a real browser (issue 34 item 6): the lobby's open games follow the
player feed's ``lobby`` events (another player's new game appears, a game that starts goes, no reload),
and the table notes who took tiles from the bazaar.

The server is the production one (gunicorn with goat's uvicorn workers, so the streams stream) on the
test's database and live channel; the other players act through the services in this process, whose
commits publish on the same channel, as another web worker's would.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from testkit import gunicorn_site

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "domino-goat-1"

pytestmark = [pytest.mark.browser, pytest.mark.realprocess, pytest.mark.database]  # gunicorn on the test database


@pytest.fixture
def site(transactional_db, tmp_path):
    """gunicorn (one uvicorn worker) serving goat.asgi on the test database, listening on the channel
    prefix this process publishes on (derived from the database name before the test database replaced it)."""
    from django.conf import settings

    with gunicorn_site(tmp_path, {"GOAT_LIVE_PREFIX": settings.GOAT_LIVE_PREFIX}) as served:
        yield served


def _signed_up(browser, site, username: str):
    """The browser signs ``username`` up on the play page (the server's own password hashing)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{site.url}/play/")
    browser.find_element(By.ID, "id_signup-username").send_keys(username)
    browser.find_element(By.ID, "id_signup-password").send_keys(PASSWORD)
    browser.find_element(By.ID, "signup-submit").click()
    wait = WebDriverWait(browser, 30)
    assert wait.until(EC.presence_of_element_located((By.ID, "whoami"))).text == username
    return wait


def _open_games(browser) -> list[int]:
    return browser.execute_script(
        "return Array.from(document.querySelectorAll('#open-games li[data-game]'), li => Number(li.dataset.game))")


def test_the_lobbys_open_games_come_and_go_without_a_reload(site, open_browser, django_user_model,
                                                            browser_csp_violations):
    from goat.games import services

    olga, petr, ivan = (django_user_model.objects.create_user(username=n, password=PASSWORD)
                        for n in ("olga", "petr", "ivan"))
    browser = open_browser(window_size="390,844")
    wait = _signed_up(browser, site, "masha")
    assert _open_games(browser) == []
    browser.execute_script("window.__sameDocument = true")  # gone if the page reloads
    # the feed's hello came: it listens, so what follows is heard live
    wait.until(lambda d: d.find_element("id", "open-games").get_attribute("data-live") == "true")
    reads = "return performance.getEntriesByType('resource').filter(e => e.name.includes('open=true')).length"
    before = browser.execute_script(reads)

    game = services.game_create(player=olga, ruleset="goat-classic", seats=3).game
    wait.until(lambda d: _open_games(d) == [game.pk])
    assert "olga" in browser.find_element("id", "open-games").text
    services.game_join(game_id=game.pk, player=petr)  # a seat taken: the row says so
    wait.until(lambda d: "petr" in d.find_element("id", "open-games").text)
    assert _open_games(browser) == [game.pk]
    services.game_join(game_id=game.pk, player=ivan)  # the last seat: it starts, no longer open
    wait.until(lambda d: _open_games(d) == [])
    assert browser.execute_script(reads) == before  # the events carried the rows: no list read again
    assert browser.execute_script("return window.__sameDocument === true")
    assert browser_csp_violations(browser) == []


def test_a_pairs_table_appears_with_a_seat_per_partner_and_the_chosen_seat_is_taken(site, open_browser,
                                                                                     django_user_model):
    """goat-pairs in the lobby: a table that appears live offers each free seat by who sits opposite;
    clicking "Sit opposite olga" seats masha at seat 2, olga's partner (docs/api.md "Pairs")."""
    from goat.games import services
    from goat.games.models import Seat

    olga = django_user_model.objects.create_user(username="olga", password=PASSWORD)
    browser = open_browser(window_size="390,844")
    wait = _signed_up(browser, site, "masha")
    wait.until(lambda d: d.find_element("id", "open-games").get_attribute("data-live") == "true")
    game = services.game_create(player=olga, ruleset="goat-pairs", seats=4, options={"move_time": 0}).game
    wait.until(lambda d: _open_games(d) == [game.pk])
    labels = ("return Array.from(document.querySelectorAll('#open-games button.join'), "
              "b => [b.dataset.seat, b.innerText])")
    assert browser.execute_script(labels) == [["1", "Sit at seat 2"], ["2", "Sit opposite olga"],
                                              ["3", "Sit at seat 4"]]
    browser.find_element("css selector", '#open-games button.join[data-seat="2"]').click()
    wait.until(lambda d: f"/play/{game.pk}/" in d.current_url)
    masha = django_user_model.objects.get(username="masha")
    assert Seat.objects.get(game=game, player=masha).seat == 2


def test_the_new_game_form_offers_the_seat_counts_of_the_chosen_ruleset(site, open_browser, django_user_model):
    """The forms offer only the seat counts a ruleset is played with (play/static/play/seats.js): goat-pairs
    four, the seats 2 and 3 disabled and the choice moved to 4; the computer players fewer than the seats;
    the challenge form the same. The game it starts is a four-seat goat-pairs table."""
    from selenium.webdriver.support.ui import Select

    from goat.games.models import Game

    browser = open_browser(window_size="390,844")
    wait = _signed_up(browser, site, "masha")
    enabled = ("return Object.fromEntries(['ng-seats', 'ng-computers', 'ch-seats'].map(id => [id, "
               "Array.from(document.getElementById(id).options).filter(o => !o.disabled).map(o => o.value)]))")
    wait.until(lambda d: not d.find_element("id", "new-game-submit").get_attribute("disabled"))
    form = {name: Select(browser.find_element("id", name)) for name in ("ng-ruleset", "ng-seats", "ch-ruleset")}
    form["ng-seats"].select_by_value("2")
    assert browser.execute_script(enabled) == {"ng-seats": ["2", "3", "4"], "ng-computers": ["0", "1"],
                                               "ch-seats": ["", "2", "3", "4"]}
    form["ng-ruleset"].select_by_value("goat-pairs")
    form["ch-ruleset"].select_by_value("goat-pairs")
    assert browser.execute_script(enabled) == {"ng-seats": ["4"], "ng-computers": ["0", "1", "2", "3"],
                                               "ch-seats": ["", "4"]}
    assert form["ng-seats"].first_selected_option.get_attribute("value") == "4"
    browser.find_element("id", "new-game-submit").click()
    wait.until(lambda d: "/play/" in d.current_url and d.current_url.rstrip("/").split("/")[-1].isdigit())
    game = Game.objects.get(pk=int(browser.current_url.rstrip("/").split("/")[-1]))
    assert (game.ruleset, game.seats) == ("goat-pairs", 4)


def test_the_table_notes_who_took_tiles_from_the_bazaar(site, open_browser, django_user_model):
    from goat import engine
    from goat.engine.tiles import tile_str
    from goat.games import eventstore, services
    from goat.games.models import Game

    olga = django_user_model.objects.create_user(username="olga", password=PASSWORD)
    browser = open_browser()
    wait = _signed_up(browser, site, "masha")
    masha = django_user_model.objects.get(username="masha")
    people = [masha, olga]
    rng = random.Random(11)
    for _attempt in range(20):  # a game whose bazaar gives tiles (nearly every one)
        game = services.game_create(player=masha, ruleset="goat-classic", seats=2, options={"move_time": 0}).game
        services.game_join(game_id=game.pk, player=olga)
        browser.get(f"{site.url}/play/{game.pk}/")
        # the stream followed before the first command: else its first message, the state, could carry
        # that command, and the note with it is not shown
        wait.until(lambda d: d.find_elements("css selector", "#table[data-live] #hand .tile"))
        while True:
            game = Game.objects.get(pk=game.pk)
            if game.ended:
                break
            state = eventstore.state_load(game)
            tile, end = rng.choice(engine.legal_moves(state))
            services.game_play_tile(game_id=game.pk, player=people[state.turn], tile=tile_str(tile), end=end)
            last = eventstore.events_load(game_id=game.pk, after=game.version)
            # the page shows this command's update before the next one (one update each)
            wait.until(lambda d, v=last[-1].seq: int(d.find_element("id", "table").get_attribute("data-version")) >= v)
            drawn = [e for e in last if e.type == "tile_drawn"]
            if drawn and last[-1].type == "tile_drawn":
                seat = drawn[-1].seat
                notes = browser.find_elements("css selector", '#table-notes li[data-type="tile_drawn"]')
                assert notes, browser.find_element("id", "table-notes").text
                note = notes[-1]
                count = len([e for e in drawn if e.seat == seat])
                word = "tile" if count == 1 else "tiles"
                if seat == 0:  # masha's own draws, by name
                    tiles = [e.data["tile"] for e in drawn if e.seat == 0]
                    assert note.text == f"You take {count} {word} from the bazaar: {', '.join(tiles)}."
                else:
                    assert note.text == f"olga takes {count} {word} from the bazaar."
                    link = note.find_element("css selector", "a")
                    assert link.get_attribute("href").endswith("/players/olga/")
                return
    raise AssertionError("no draw from the bazaar in 20 games")
