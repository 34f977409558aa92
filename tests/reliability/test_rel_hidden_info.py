"""Hidden information and verification: 100 random games through the API, every player-facing answer scanned.

Each seat is its own token client and picks at random among the ``legal_moves`` its view offers
(joining with a client seed, moving with ``If-Match``). The games cover every ruleset, 2-4 seats, and
goat games both short (``limit`` 31) and of the preset's own length. The scan covers every answer a
player (among them a staff player, an auditor player and a superuser player, who see no more while
seated) gets while a game runs: the game view, the move response, the event log (whole and
``?after=``), the scoresheet, the game list, and replay/verify (which must be refused), and what each
move and each join (the last one deals) publish for the live streams (the public update on the game's
channel, each seat's own part on its player's channel of the game). From the unredacted server-side
state at that moment it computes the hidden tiles (every other hand and the bazaar) and asserts that
none of them appears anywhere in the answer as a tile string ("a-b" in either order, inside any
string), except where a player may see tiles: the completed rounds of the scoresheet (hands are
revealed at a round's end) and tile_played events of earlier rounds (the same 28 tiles are dealt
again every round). Events are also checked structurally: another seat's hand in a deal is a count,
the bazaar a count, another seat's draw a null tile. A view's own hand is the seat's hand in that
state, and the other seats are counts.

After the end, every game's exported event log passes ``python -m goat.engine verify`` (one call for
each block of games) with the result the API shows.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from rest_framework import throttling
from rest_framework.test import APIClient
from rest_framework.utils.encoders import JSONEncoder

from apitest import token_client
from goat.engine.rulesets import RULESETS, seat_range
from goat.engine.tiles import tile_str
from goat.games import eventstore, notify
from goat.games.models import Game, Seat
from goat.live import fanout

pytestmark = pytest.mark.django_db

GAMES = 100
CHUNKS = 4  # the games split in blocks of 25, each a test of its own, so that pytest -n spreads them
REPO = Path(__file__).resolve().parents[2]
FULL_LENGTH = (0, 27, 54, 75)  # goat-classic, goat-gamesburg, goat-pairs, goat-classic: one in each block
TILE = re.compile(r"(?<![\d.])(\d)-(\d)(?![\d])")


def tiles_mentioned(value) -> set[str]:
    text = json.dumps(value)
    return {f"{min(a, b)}-{max(a, b)}" for a, b in TILE.findall(text)}


def canon(tile: str) -> str:
    a, b = sorted(tile.split("-"))
    return f"{a}-{b}"


class Scanner:
    def __init__(self):
        self.answers = 0
        self.leaks: list = []
        self._state = None  # the server-side state since the last action (join or move)

    def forget(self) -> None:
        """The game moved on: the next question loads its state again."""
        self._state = None

    def state(self, game_id: int):
        if self._state is None:
            self._state = eventstore.state_load(Game.objects.get(pk=game_id))
        return self._state

    def hidden(self, game_id: int, seat: int) -> tuple[set[str], int]:
        state = self.state(game_id)
        hidden = {canon(tile_str(t)) for s in range(state.seats) if s != seat for t in state.hand(seat=s)}
        if state.table is not None:
            hidden |= {canon(tile_str(t)) for t in state.table.bazaar}
        return hidden, state.round_no

    def own_view(self, game_id: int, seat: int, view: dict) -> None:
        """A seat's view shows its own hand as the server holds it, and the other seats as counts."""
        state = self.state(game_id)
        if view["hand"] != [tile_str(t) for t in state.hand(seat)]:
            self.leaks.append(("view.hand", seat, "not the seat's own hand"))
        if not isinstance(view["bazaar"], int):
            self.leaks.append(("view.bazaar", seat, view["bazaar"]))
        if [s["tiles"] for s in view["seats"]] != [len(state.hand(s)) for s in range(state.seats)]:
            self.leaks.append(("view.seats", seat, [s["tiles"] for s in view["seats"]]))

    def leak(self, where: str, seat: int, found) -> None:
        if found:
            self.leaks.append((where, seat, sorted(found) if isinstance(found, set) else found))

    def view(self, where, seat, view, hidden):
        self.answers += 1
        self.leak(where, seat, tiles_mentioned(view) & hidden)

    def events(self, where, seat, events, hidden):
        """Structure of every event; hidden tiles only in events of the round being played."""
        self.answers += 1
        current_from = max((e["seq"] for e in events if e["type"] == "round_dealt"), default=0)
        for event in events:
            data = event["data"]
            if event["type"] == "round_dealt":
                hands = data["hands"]
                if not (all(isinstance(h, int) for s, h in enumerate(hands) if s != seat)
                        and isinstance(data["bazaar"], int)):
                    self.leak(where, seat, f"unredacted deal at seq {event['seq']}")
            elif event["type"] == "tile_drawn" and event["seat"] != seat and data.get("tile") is not None:
                self.leak(where, seat, f"another seat's draw at seq {event['seq']}")
            if event["seq"] >= current_from:
                self.leak(f"{where} seq {event['seq']}", seat, tiles_mentioned(event) & hidden)

    def scoresheet(self, where, seat, sheet, hidden, round_no):
        self.answers += 1
        if any(r.get("round", 0) >= round_no for r in sheet["rounds"]):
            self.leak(where, seat, "the scoresheet shows the round being played")
        self.leak(where, seat, tiles_mentioned({k: v for k, v in sheet.items() if k != "rounds"}) & hidden)


def scan_everything(scanner: Scanner, client: APIClient, game_id: int, seat: int, username: str) -> None:
    hidden, round_no = scanner.hidden(game_id, seat)
    scanner.view("view", seat, client.get(f"/api/games/{game_id}/").json(), hidden)
    scanner.events("events", seat, client.get(f"/api/games/{game_id}/events/").json()["events"], hidden)
    scanner.events("events?after", seat, client.get(f"/api/games/{game_id}/events/?after=3").json()["events"], hidden)
    scanner.scoresheet("scoresheet", seat, client.get(f"/api/games/{game_id}/scoresheet/").json(), hidden, round_no)
    scanner.view("list", seat, client.get(f"/api/games/?player={username}&status=running").json(), hidden)
    for what in ("replay/", "verify/", "replay/?at=5"):
        response = client.get(f"/api/games/{game_id}/{what}")
        scanner.answers += 1
        if response.status_code != 409 or response.json()["code"] != "game_not_ended":
            scanner.leak(what, seat, f"answered {response.status_code}")
        scanner.leak(what, seat, tiles_mentioned(response.json()) & hidden)


def scan_published(scanner: Scanner, game_id: int, published: list[tuple[str, dict]]) -> None:
    """What a move or a join published for the streams: the public update hides every hand and the bazaar; a
    seat's own part, on its player's channel of the game only, hides the other hands and the bazaar."""
    seats = dict(Seat.objects.filter(game_id=game_id).values_list("player_id", "seat"))
    public = [m for channel, m in published if channel == notify.game_channel(game_id) and "update" in m]
    if len(public) != 1:
        scanner.leak("stream", None, f"{len(public)} public updates for one move")
    hidden, _ = scanner.hidden(game_id, None)
    for message in public:
        scanner.view("stream.game", None, message["update"]["game"], hidden)
        scanner.events("stream.events", None, message["update"]["events"], hidden)
    for player_id, seat in seats.items():
        own = [m["own"] for channel, m in published if channel == notify.seat_channel(game_id, player_id)]
        if len(own) != 1 or own[0]["seat"] != seat:
            scanner.leak("stream.own", seat, f"{len(own)} own parts, or another seat's, on the channel")
            continue
        hidden, _ = scanner.hidden(game_id, seat)
        scanner.view("stream.own", seat, {k: v for k, v in own[0].items() if k != "events"}, hidden)
        scanner.events("stream.own.events", seat, own[0]["events"], hidden)


def table_of(n: int) -> tuple[str, int, dict]:
    """Game n's ruleset, seats and options: every ruleset with 2-4 seats (goat-pairs with its 4), goat
    games short (a limit of 31) but for those of ``FULL_LENGTH``, which keep the preset's own options."""
    ruleset = ("goat-classic", "domino-3rounds", "goat-gamesburg", "domino-3rounds", "goat-pairs")[n % 5]
    seats = 4 if ruleset == "goat-pairs" else 2 + n % 3
    options = {} if ruleset == "domino-3rounds" or n in FULL_LENGTH else {"limit": 31}
    return ruleset, seats, options


def verify_offline(logs: list[tuple[int, list[dict], dict]], tmp_path) -> None:
    """Each game's exported event log passes the offline verifier with the result the API shows."""
    files = []
    for game_id, log, final in logs:
        path = tmp_path / f"game-{game_id}.json"
        path.write_text(json.dumps(log))
        files.append((path, final))
    proc = subprocess.run([sys.executable, "-m", "goat.engine", "verify", *[str(p) for p, _ in files]],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    reports = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert len(reports) == len(files)
    for (path, final), report in zip(files, reports, strict=True):
        assert report["file"] == str(path)
        assert report["valid"] is True, report
        assert report["result"] == final["result"], (report, final)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_a_hundred_games_leak_no_hidden_tile_through_any_endpoint(django_user_model, monkeypatch, tmp_path,
                                                                  django_capture_on_commit_callbacks, chunk):
    monkeypatch.setattr(throttling.SimpleRateThrottle, "allow_request", lambda self, request, view: True)
    published: list[tuple[str, dict]] = []
    # as the channel carries them: JSON (its encoder is DRF's, as the API's)
    monkeypatch.setattr(fanout, "publish_all", lambda messages: published.extend(
        json.loads(json.dumps(messages, cls=JSONEncoder))))
    rng = random.Random(909 + chunk)
    block = range(chunk * GAMES // CHUNKS, (chunk + 1) * GAMES // CHUNKS)
    # Seat 0 is a staff player, seat 1 an auditor player (goat.audit_game), seat 2 a superuser: holding a
    # seat, each sees what any player sees (docs/api.md); seat 3 is a plain player.
    users = [django_user_model.objects.create_user(username=f"h{i}", password="pw-" * 4, is_staff=i < 3,
                                                   is_superuser=i == 2) for i in range(4)]
    users[1].user_permissions.add(Permission.objects.get(codename="audit_game"))
    clients = [token_client(u) for u in users]
    scanner = Scanner()
    logs: list[tuple[int, list[dict], dict]] = []
    for n in block:
        ruleset, seats, options = table_of(n)
        response = clients[0].post("/api/games/", {"ruleset": ruleset, "seats": seats, "options": options},
                                   format="json")
        assert response.status_code == 201, response.content
        game_id = response.json()["id"]
        for s in range(1, seats):
            published.clear()
            with django_capture_on_commit_callbacks(execute=True):
                response = clients[s].post(f"/api/games/{game_id}/join/", {"client_seed": f"seed-{rng.random()}"},
                                           format="json")
            assert response.status_code == 200, response.content
            assert response.json()["your_seat"] == s
            scanner.forget()
            scan_published(scanner, game_id, published)  # the last join deals: every hand its seat's alone
        game = response.json()
        moves = 0
        while game["status"] == "running":
            seat = game["turn"]
            hidden, _ = scanner.hidden(game_id, seat)
            view = clients[seat].get(f"/api/games/{game_id}/").json()
            scanner.view("view", seat, view, hidden)
            scanner.own_view(game_id, seat, view)
            choice = rng.choice(view["legal_moves"])
            published.clear()
            with django_capture_on_commit_callbacks(execute=True):
                response = clients[seat].post(f"/api/games/{game_id}/moves/", choice, format="json",
                                              HTTP_IF_MATCH=f'"{view["version"]}"')
            assert response.status_code == 201, response.content
            scanner.forget()
            body = response.json()
            game = body["game"]
            if game["status"] == "running":
                scan_published(scanner, game_id, published)
                hidden, _ = scanner.hidden(game_id, seat)
                scanner.view("move.game", seat, game, hidden)
                scanner.own_view(game_id, seat, game)
                scanner.events("move.events", seat, body["events"], hidden)
                if moves % 6 == 0:  # the full battery for a seat that did not move, and the mover
                    spectator_seat = rng.choice([s for s in range(seats) if s != seat])
                    scan_everything(scanner, clients[spectator_seat], game_id, spectator_seat,
                                    users[spectator_seat].username)
                    scan_everything(scanner, clients[seat], game_id, seat, users[seat].username)
            moves += 1
        assert not scanner.leaks, scanner.leaks[:10]
        log = clients[0].get(f"/api/games/{game_id}/events/").json()["events"]
        assert [e["seq"] for e in log] == list(range(1, game["version"] + 1))
        assert log[-1]["type"] == "seed_revealed"
        logs.append((game_id, log, game))
    assert len(logs) == len(block)
    assert scanner.answers > len(block) * 50, scanner.answers
    verify_offline(logs, tmp_path)
    print(f"hidden-information scan: games {block.start}-{block.stop - 1} of {GAMES}, "
          f"{scanner.answers} answers scanned, 0 leaks, {len(logs)} games verified offline")


def test_the_hundred_games_cover_every_ruleset_and_seat_count():
    tables = [table_of(n) for n in range(GAMES)]
    assert {(ruleset, seats) for ruleset, seats, _ in tables} == {
        (ruleset, seats) for ruleset in RULESETS for seats in range(seat_range(ruleset)[0], seat_range(ruleset)[1] + 1)}
    assert {ruleset for ruleset, _, options in tables if not options} == set(RULESETS)
