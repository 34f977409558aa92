"""Screenshots of the site for docs/site.md: every page in English and Russian, at a desktop's size and a
phone's, in headless Chromium (Debian's chromium and chromium-driver, driven by Selenium).

    python bench/screenshots.py [--out docs/site]

It seeds a demo on a throwaway SQLite database (players, finished games, a running game, a four-seat
table, a running and a finished tournament, one long username and one long tournament name), serves
it with uvicorn (goat.asgi), and saves ``<page>-<en|ru>-<desktop|phone>.png`` in ``--out``: the first
screen of each page, as a visitor sees it (the play page as the player to move, the admin's
replay as an auditor). The desktop is
1280 x 900 CSS pixels, the phone 390 x 844 (emulated, touch). Nothing is measured: this is not a bench,
it lives here with the other scripts that drive a running server.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SIZES = {"desktop": (1280, 900, False), "phone": (390, 844, True)}
LANGUAGES = ("en", "ru")
PASSWORD = "domino-goat-1"
FAST = {"limit": 25, "move_time": 0}


def seed() -> dict[str, str]:
    """The demo data; returns the path of each page to take (and the player the play page is for)."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from goat import engine
    from goat.engine.tiles import tile_str
    from goat.games import eventstore, services
    from goat.games.computer import stand_ins_play
    from tournaments import services as tournaments

    User = get_user_model()
    names = ("ann", "ben", "cat", "dan", "eve", "fedor", "galina", "konstantin_konstantinopolsky_1987")
    users = {n: User.objects.create_user(username=n, password=PASSWORD) for n in names}
    director = User.objects.create_user(username="director", password=PASSWORD, is_staff=True)
    User.objects.create_superuser(username="auditor", password=PASSWORD)

    def game(players, seats: int | None = None, options=None):
        created = services.game_create(player=users[players[0]], ruleset="goat-classic",
                                       seats=seats or len(players), options=dict(options or FAST)).game
        for name in players[1:]:
            services.game_join(game_id=created.pk, player=users[name])
        return created

    finished = []
    for i, pair in enumerate((("ann", "ben"), ("cat", "dan"), ("ann", "konstantin_konstantinopolsky_1987"),
                              ("eve", "fedor"), ("ben", "galina"), ("ann", "cat"))):
        played = game(pair)
        stand_ins_play(everyone=True, game_ids=[played.pk], until_done=True, seed=i)
        finished.append(played)

    rng = random.Random(7)

    def advance(played, *, until) -> None:
        """Random legal moves until ``until(state)`` holds."""
        while True:
            played.refresh_from_db()
            state = eventstore.state_load(played)
            if until(state):
                return
            tile, end = rng.choice(engine.legal_moves(state))
            services.game_play_tile(game_id=played.pk, player=users[state.players[state.turn]],
                                    tile=tile_str(tile), end=end)

    running = game(("ben", "eve"))
    advance(running, until=lambda s: s.table is not None and len(s.table.line) >= 9)
    table = game(("ann", "konstantin_konstantinopolsky_1987", "dan", "galina"),
                 options={"limit": 101, "move_time": 60})
    advance(table, until=lambda s: s.table is not None and len(s.table.line) >= 10 and s.players[s.turn] == "ann"
            and engine.legal_moves(s))

    done = tournaments.tournament_create(
        created_by=director, name="Чемпионат_Северо-Западного_федерального_округа_по_козлу", ruleset="goat-classic",
        options=dict(FAST), format="swiss", rounds=1, table_size=2,
        starts_at=timezone.now() - timedelta(seconds=1), max_players=8)
    cup = tournaments.tournament_create(
        created_by=director, name="Friday swiss", ruleset="goat-classic", options=dict(FAST), format="swiss",
        rounds=2, table_size=2, starts_at=timezone.now() - timedelta(seconds=1), max_players=8)
    for name in ("ann", "ben", "cat", "dan"):
        tournaments.tournament_register(tournament_id=done.pk, player=users[name])
    for name in ("eve", "fedor", "galina", "konstantin_konstantinopolsky_1987"):
        tournaments.tournament_register(tournament_id=cup.pk, player=users[name])
    tournaments.tournaments_start_due()
    stand_ins_play(everyone=True, game_ids=list(done.tables.values_list("game_id", flat=True)), until_done=True, seed=1)
    first = cup.tables.order_by("number").first()
    stand_ins_play(everyone=True, game_ids=[first.game_id], until_done=True, seed=2)
    tournaments.tournament_create(
        created_by=director, name="Sunday cup", ruleset="goat-classic", options=dict(FAST), format="swiss",
        rounds=3, table_size=2, starts_at=timezone.now() + timedelta(days=2), max_players=16)
    return {
        "home": "/", "player": "/players/ann/", "game-running": f"/games/{running.pk}/",
        "game-replay": f"/games/{finished[0].pk}/?step=12", "tournament": f"/tournaments/{cup.pk}/",
        "tournaments": "/tournaments/", "leaderboards": "/leaderboards/", "play": f"/play/{table.pk}/",
        "admin-replay": f"/admin/goat/game/{finished[0].pk}/replay/?step=12",
    }


#: what each page shows once it is ready (the play page: the moves the script draws from the API)
READY = {"play": "#moves button.move", "game-replay": "#replay-line .tile", "game-running": "#line .tile",
         "admin-replay": "#replay-line .tile"}
#: who each page is taken for (else an anonymous visitor): the play page for ann, who is to move at her
#: table; the admin's replay for a staff member who may audit games
VIEWER = {"play": "ann", "admin-replay": "auditor"}


def serve(env: dict[str, str], port: int):
    from testkit import GroupProcess

    server = GroupProcess([sys.executable, "-m", "uvicorn", "goat.asgi:application", "--host", "127.0.0.1",
                           "--port", str(port), "--no-access-log"], cwd=REPO, env=env,
                          log_path=Path(env["GOAT_DATA_DIR"]) / "uvicorn.log")
    server.wait_http_ok(f"http://127.0.0.1:{port}/health/", timeout=60)
    return server


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                "--disable-background-networking", "--disable-component-update", "--no-first-run",
                "--window-size=1280,900"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "site"), help="the folder the PNG files go to")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="goat-shots-"))
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{work / 'goat.sqlite3'}", "GOAT_DATA_DIR": str(work / "data"),
           "SECRET_KEY": "screenshots-" + "x" * 40, "CELERY_TASK_ALWAYS_EAGER": "1",
           "DJANGO_SETTINGS_MODULE": "goat.settings", "PYTHONPATH": str(REPO)}
    for name in ("CELERY_BROKER_URL", "REDIS_URL"):
        env.pop(name, None)
    os.environ.clear()
    os.environ.update(env)
    sys.path[:0] = [str(REPO), str(REPO / "tests")]
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from testkit import free_port

    call_command("migrate", verbosity=0)
    pages = seed()
    User = get_user_model()
    sessions = {}
    for name in set(VIEWER.values()):
        client = Client()
        client.force_login(User.objects.get(username=name))
        sessions[name] = client.cookies[settings.SESSION_COOKIE_NAME].value
    port = free_port()
    server = serve(env, port)
    driver = browser()
    try:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        base = f"http://127.0.0.1:{port}"
        driver.get(f"{base}/health/")
        for language in LANGUAGES:
            driver.delete_all_cookies()
            driver.add_cookie({"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "path": "/"})
            for size, (width, height, mobile) in SIZES.items():
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                       {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
                for page, path in pages.items():
                    if page in VIEWER:
                        driver.add_cookie({"name": settings.SESSION_COOKIE_NAME, "value": sessions[VIEWER[page]],
                                           "path": "/"})
                    else:
                        driver.delete_cookie(settings.SESSION_COOKIE_NAME)
                    driver.get(base + path)
                    ready = READY.get(page, "main")
                    WebDriverWait(driver, 20).until(lambda d, css=ready: d.find_elements(By.CSS_SELECTOR, css))
                    time.sleep(0.3)  # the live pages' first stream update
                    target = out / f"{page}-{language}-{size}.png"
                    driver.save_screenshot(str(target))
                    print(target.relative_to(REPO) if target.is_relative_to(REPO) else target)
    finally:
        driver.quit()
        server.stop()


if __name__ == "__main__":
    main()
