"""End-to-end fixtures: real Celery worker (and beat) processes on the real broker and database, and
headless Chromium.

A test that starts a worker needs a database and a broker another process can reach (PostgreSQL and
Redis): it is marked ``database`` as well as ``realprocess`` or ``browser``, and tests/conftest.py
skips it, saying what is missing, where they are not configured (docs/development.md, Tests).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings

from testkit import GroupProcess, gunicorn_site, test_database_url
from testkit import wait_for as _wait_for

REPO = Path(__file__).resolve().parents[2]


class Worker:
    """A ``celery -A goat worker -B`` process against the test database."""

    def __init__(self, tmp_path: Path, *, extra_env: dict | None = None):
        self.log_path = tmp_path / f"worker-{time.monotonic_ns()}.log"
        self.env = {
            **os.environ,
            "DATABASE_URL": test_database_url(),
            "GOAT_DATA_DIR": str(tmp_path / "worker-data"),
            "CELERY_TASK_ALWAYS_EAGER": "0",
            **(extra_env or {}),
        }
        self.schedule = tmp_path / "beat-schedule"
        self.process: GroupProcess | None = None

    def start(self, *, beat: bool = True, timeout: float = 30) -> Worker:
        cmd = [sys.executable, "-m", "celery", "-A", "goat", "worker", "--pool", "solo", "--loglevel", "INFO",
               "--hostname", f"e2e-{os.getpid()}-{time.monotonic_ns()}@%h", "--without-mingle", "--without-gossip"]
        if beat:
            cmd += ["--beat", "--schedule", str(self.schedule)]
        self.process = GroupProcess(cmd, cwd=REPO, env=self.env, log_path=self.log_path)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.proc.poll() is not None:
                raise RuntimeError(f"worker exited early:\n{self.output()}")
            if b"ready." in self.log_path.read_bytes():
                return self
            time.sleep(0.2)
        raise RuntimeError(f"worker not ready in {timeout}s:\n{self.output()}")

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def kill(self) -> None:
        if self.process:
            self.process.kill()

    def stop(self) -> None:
        if self.process:
            self.process.stop()


@pytest.fixture
def live_celery(transactional_db, tmp_path):
    """Send tasks to the real broker (not eagerly) and give the test a way to start workers."""
    from goat.celery import app

    app.conf.task_always_eager = False
    app.control.purge()
    workers: list[Worker] = []

    def start(**kwargs) -> Worker:
        worker = Worker(tmp_path, **{k: v for k, v in kwargs.items() if k != "beat"})
        workers.append(worker.start(beat=kwargs.get("beat", True)))
        return worker

    yield start
    for worker in workers:
        worker.stop()
    app.control.purge()


@pytest.fixture
def computer_site(live_celery, tmp_path):
    """gunicorn (one uvicorn worker) serving goat.asgi on the test database, and a Celery worker, with
    computers that move at once; ``stuck(browser, game_id, clicks)`` says what the page, the database and
    the processes said when a game played by clicking did not end in time."""
    worker = live_celery(beat=False, extra_env={"GOAT_COMPUTER_THINK_SECONDS": "0"})
    with gunicorn_site(tmp_path, {"GOAT_COMPUTER_THINK_SECONDS": "0", "CELERY_TASK_ALWAYS_EAGER": "0"}) as served:

        def stuck(browser, game_id: int, clicks: int) -> str:
            from goat.games.models import Game

            game = Game.objects.get(pk=game_id)
            page = browser.execute_script(
                "return ['table-state', 'play-status', 'seats', 'moves']"
                ".map(id => document.getElementById(id).innerText)")
            return (f"no result after {clicks} clicks; the game: {game.status} version {game.version} "
                    f"turn {game.turn}; the page: {page}\nweb:\n{served.web.output(3000)}\n"
                    f"worker:\n{worker.output()}")

        yield SimpleNamespace(url=served.url, web=served.web, worker=worker, stuck=stuck)


@pytest.fixture
def wait_for():
    """``wait_for(predicate, timeout=..., what=...)``: poll until true or fail."""
    return _wait_for


@pytest.fixture
def uvicorn_site(tmp_path, transactional_db):
    """The ASGI application (goat.asgi) under uvicorn on the test database; yields its address."""
    env = {**os.environ, "DATABASE_URL": test_database_url(), "GOAT_DATA_DIR": str(tmp_path / "site-data"),
           "SECRET_KEY": settings.SECRET_KEY, "CELERY_TASK_ALWAYS_EAGER": "0", "PYTHONPATH": str(REPO),
           # the channel prefix this process publishes on (derived from the database name before the
           # test database replaced it)
           "GOAT_LIVE_PREFIX": settings.GOAT_LIVE_PREFIX}
    server = GroupProcess([sys.executable, "-m", "uvicorn", "goat.asgi:application", "--host", "127.0.0.1",
                           "--port", "0", "--no-access-log"], cwd=REPO, env=env,
                          log_path=tmp_path / "uvicorn.log")
    try:
        port = server.printed_port(r"running on http://127\.0\.0\.1:(\d+)", timeout=60)
        server.wait_http_ok(f"http://127.0.0.1:{port}/health/", timeout=60)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


# --- headless Chromium (Debian's package; never a downloaded browser) ---------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__cspViolations.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " at " +
                              e.sourceFile + ":" + e.lineNumber);
});
"""


def csp_violations(driver) -> list[str]:
    """The Content-Security-Policy violations the current page has raised so far."""
    return driver.execute_script("return window.__cspViolations || [];")


@pytest.fixture
def browser_csp_violations():
    """``browser_csp_violations(driver)``: the CSP violations of the page open in ``driver``."""
    return csp_violations


@pytest.fixture
def open_browser(tmp_path):
    """``open_browser(window_size="1280,1000")``: a headless Chromium driven by Selenium, quit after the test.

    Skips only where Debian's chromium and chromium-driver are not installed (.ci/run installs them).
    """
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("needs Debian's chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    drivers = []

    def open_(window_size: str = "1280,1000"):
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        profile = tmp_path / f"chromium-{len(drivers)}"
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--no-first-run", f"--user-data-dir={profile}", f"--window-size={window_size}"):
            options.add_argument(arg)
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        driver.set_page_load_timeout(30)
        # Every document records the Content-Security-Policy violations it raises (csp_violations below).
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_LISTENER})
        drivers.append(driver)
        return driver

    yield open_
    for driver in drivers:
        driver.quit()
