"""Games played through the API, audited: 50 random games across every ruleset and 2-4 seats.

Each player is its own token client and picks randomly among the ``legal_moves`` its game view
offers. While a game runs, no response a player receives shows another seat's tiles or the bazaar;
after the end, every game's exported event log passes ``python -m goat.engine verify`` (one call for
all of them) with the result the API shows.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework import throttling
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from goat import engine
from goat.engine.tiles import tile_str

pytestmark = pytest.mark.django_db

GAMES = 50
CHUNKS = 2  # every other game in each of two tests, so that pytest -n spreads them
RULESETS = ("goat-classic", "goat-gamesburg", "domino-3rounds")
REPO = Path(__file__).resolve().parents[2]


def canonical(text: str) -> str:
    a, b = sorted(int(x) for x in text.split("-"))
    return f"{a}-{b}"


def tiles_in(value) -> set[str]:
    """Every tile-looking string anywhere in a JSON value, canonicalised."""
    found: set[str] = set()
    if isinstance(value, str):
        if len(value) == 3 and value[1] == "-" and value[0].isdigit() and value[2].isdigit():
            found.add(canonical(value))
    elif isinstance(value, dict):
        for item in value.values():
            found |= tiles_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= tiles_in(item)
    return found


def check_events_redacted(events: list[dict], seat: int) -> None:
    for event in events:
        if event["type"] == "round_dealt":
            hands = event["data"]["hands"]
            assert all(isinstance(h, int) for s, h in enumerate(hands) if s != seat), event
            assert isinstance(hands[seat], list), event
            assert isinstance(event["data"]["bazaar"], int), event
        elif event["type"] == "tile_drawn" and event["seat"] != seat:
            assert event["data"]["tile"] is None, event


class Table:
    """One game: a client per seat, and every response each seat received while the game ran."""

    def __init__(self, users, rng: random.Random, ruleset: str, options: dict):
        self.clients = []
        for user in users:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
            self.clients.append(client)
        self.rng = rng
        self.seen: list[tuple[int, dict]] = []  # (seat, game view) received while running
        response = self.clients[0].post("/api/games/", {"ruleset": ruleset, "seats": len(users), "options": options},
                                        format="json")
        assert response.status_code == 201, response.content
        self.id = response.json()["id"]
        view = None
        for seat, client in enumerate(self.clients[1:], start=1):
            response = client.post(f"/api/games/{self.id}/join/", {"client_seed": f"seed-{rng.random()}"},
                                   format="json")
            assert response.status_code == 200, response.content
            view = response.json()
            assert view["your_seat"] == seat
        self.view = view  # the last joiner's view

    def record(self, seat: int, view: dict) -> None:
        if view["status"] == "running":
            self.seen.append((seat, view))

    def play(self) -> dict:
        views: dict[int, dict] = {len(self.clients) - 1: self.view}
        self.record(len(self.clients) - 1, self.view)
        while True:
            latest = max(views.values(), key=lambda v: v["version"])
            if latest["status"] != "running":
                return latest
            seat = latest["turn"]
            view = views.get(seat)
            if view is None or view["version"] != latest["version"]:
                response = self.clients[seat].get(f"/api/games/{self.id}/")
                assert response.status_code == 200
                view = response.json()
                self.record(seat, view)
            assert view["legal_moves"], view
            choice = self.rng.choice(view["legal_moves"])
            response = self.clients[seat].post(f"/api/games/{self.id}/moves/", choice, format="json",
                                               HTTP_IF_MATCH=f'"{view["version"]}"')
            assert response.status_code == 201, response.content
            body = response.json()
            if body["game"]["status"] == "running":
                check_events_redacted(body["events"], seat)
            self.record(seat, body["game"])
            views[seat] = body["game"]


def states_by_version(log: list[dict]) -> dict[int, engine.GameState]:
    states = {}
    state = None
    for event in log:
        state = engine.evolve(state, event)
        states[event["seq"]] = state
    return states


def check_views_hide_other_hands(table: Table, log: list[dict]) -> int:
    states = states_by_version(log)
    for seat, view in table.seen:
        state = states[view["version"]]
        assert view["hand"] == [tile_str(t) for t in state.hand(seat)]
        hidden = {tile_str(t) for s in range(state.seats) if s != seat for t in state.hand(seat=s)}
        hidden |= {tile_str(t) for t in state.table.bazaar}
        assert not tiles_in(view) & hidden, (seat, view["version"], tiles_in(view) & hidden)
        assert isinstance(view["bazaar"], int)
        assert [s["tiles"] for s in view["seats"]] == [len(state.hand(s)) for s in range(state.seats)]
    return len(table.seen)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fifty_random_api_games_verify_and_never_leak(django_user_model, monkeypatch, tmp_path, chunk):
    monkeypatch.setattr(throttling.SimpleRateThrottle, "allow_request", lambda self, request, view: True)
    rng = random.Random(20250501 + chunk)
    users = [django_user_model.objects.create_user(username=f"p{i}", password="x" * 12) for i in range(4)]
    played = []
    for n in range(chunk, GAMES, CHUNKS):
        ruleset = RULESETS[n % 3]
        seats = 2 + (n // 3) % 3
        # Shorter goat games keep the test fast; every option still comes from the preset otherwise.
        options = {"limit": 51} if ruleset != "domino-3rounds" and n % 2 else {}
        table = Table(users[:seats], rng, ruleset, options)
        final = table.play()
        played.append((table, final))

    files = []
    checked_views = 0
    for table, final in played:
        response = table.clients[0].get(f"/api/games/{table.id}/events/")
        assert response.status_code == 200
        log = response.json()["events"]
        assert [e["seq"] for e in log] == list(range(1, final["version"] + 1))
        assert log[-1]["type"] == "seed_revealed"
        checked_views += check_views_hide_other_hands(table, log)
        path = tmp_path / f"game-{table.id}.json"
        path.write_text(json.dumps(log))
        files.append((path, final))

    proc = subprocess.run([sys.executable, "-m", "goat.engine", "verify", *[str(p) for p, _ in files]],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    reports = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(reports) == len(played)
    for (path, final), report in zip(files, reports, strict=True):
        assert report["file"] == str(path)
        assert report["valid"] is True, report
        assert report["result"] == final["result"], (report, final)
    assert {f["ruleset"] for _, f in played} == set(RULESETS)
    assert {len(f["seats"]) for _, f in played} == {2, 3, 4}
    assert checked_views > len(played) * 10
