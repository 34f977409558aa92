"""Live streams against the real ``python manage.py run`` (embedded default: SQLite, the local fan-out
substitute, two web workers, a Celery worker and beat as separate processes).

Whole games are played from the streams alone; a stream dropped mid-game resumes with no gap and
no duplicate; a timeout by the clock task (another process) reaches every stream; refusals come as
problem details before the stream; streams show no hidden information; the per-token limit holds
across the web workers; Ctrl-C ends the streams and leaves no process. The "Live play" client of
docs/api.md is run as written.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from testkit import RUN_THROTTLES_OFF, ManageRun

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 90
PER_TOKEN = 3
pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX"),
    pytest.mark.realprocess,  # a real `manage.py run`, on the embedded defaults in its own directory
]


class Run(ManageRun):
    def __init__(self, cwd: Path):
        super().__init__(cwd, args=["--web-workers", "2", "--worker-concurrency", "1"], migrated=True, env={
            "GOAT_CLOCK_SWEEP_SECONDS": "1", "GOAT_STREAMS_PER_TOKEN": str(PER_TOKEN),
            "GOAT_COMPUTER_THINK_SECONDS": "0", "GOAT_STREAM_KEEPALIVE_SECONDS": "1",
            "GOAT_ADMIN_PASSWORD": "staff-pass-123", **RUN_THROTTLES_OFF})

    def wait_healthy(self, timeout: float = START_TIMEOUT) -> None:
        super().wait_healthy(timeout)


class Client:
    def __init__(self, run: Run):
        self.run = run
        self.conn = http.client.HTTPConnection("127.0.0.1", run.port, timeout=30)

    def call(self, method: str, path: str, body=None, token: str | None = None, headers=None):
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token:
            sent["Authorization"] = f"Token {token}"
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=None if body is None else json.dumps(body), headers=sent)
                response = self.conn.getresponse()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # the server closed the kept-alive connection as it sat idle (keepalive 5 s): the request
                # never reached a view; send it again on a new connection, as HTTP clients do
                self.conn.close()
                if attempt == 2:
                    raise
        raw = response.read()
        return response.status, dict(response.getheaders()), (json.loads(raw) if raw else None)

    def player(self, name: str) -> str:
        password = f"pw-{name}-long-enough"
        status, _, _ = self.call("POST", "/api/players/", {"username": name, "password": password})
        assert status == 201
        status, _, body = self.call("POST", "/api/auth/token/", {"username": name, "password": password})
        return body["token"]


class Stream:
    """One open stream, read on a thread into a list of (arrival time, kind, id, data)."""

    def __init__(self, run: Run, path: str, token: str | None, *, ndjson: bool = False, headers=None):
        self.conn = http.client.HTTPConnection("127.0.0.1", run.port, timeout=60)
        sent = {"Accept": "application/x-ndjson" if ndjson else "text/event-stream", **(headers or {})}
        if token:
            sent["Authorization"] = f"Token {token}"
        self.conn.request("GET", path, headers=sent)
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.headers = {k.lower(): v for k, v in self.response.getheaders()}
        self.ndjson = ndjson
        self.messages: list[tuple[float, str, int | None, dict]] = []
        self.keepalives = 0
        self.closed = threading.Event()
        if self.status == 200:
            threading.Thread(target=self._read, daemon=True).start()
        else:
            self.body = json.loads(self.response.read())
            self.closed.set()

    def _read(self) -> None:
        try:
            if self.ndjson:
                for line in self.response:
                    if not line.strip():
                        self.keepalives += 1
                        continue
                    data = json.loads(line)
                    self.messages.append((time.monotonic(), data.pop("kind"), None, data))
            else:
                fields: dict[str, str] = {}
                for raw in self.response:
                    line = raw.decode().rstrip("\n")
                    if line.startswith(":"):
                        self.keepalives += 1
                    elif line == "":
                        if fields:
                            event_id = int(fields["id"]) if "id" in fields else None
                            self.messages.append((time.monotonic(), fields["event"], event_id,
                                                  json.loads(fields["data"])))
                        fields = {}
                    else:
                        name, _, value = line.partition(": ")
                        fields[name] = value
        except (OSError, ValueError, AttributeError, http.client.HTTPException):  # closed by close()
            pass
        finally:
            self.closed.set()

    def close(self) -> None:
        self.conn.sock and self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()
        self.closed.wait(5)

    def wait(self, predicate, timeout: float = 20, what: str = "message"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in list(self.messages):
                if predicate(message):
                    return message
            time.sleep(0.02)
        raise AssertionError(f"no {what} in {timeout}s; got {[m[1] for m in self.messages]}")

    def kinds(self) -> list[str]:
        return [m[1] for m in self.messages]

    def events(self) -> list[dict]:
        out = []
        for _, kind, _, data in self.messages:
            if kind == "update":
                out.extend(data["events"])
        return out


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    server = Run(tmp_path_factory.mktemp("streams-run"))
    try:
        server.wait_healthy()
        yield server
    finally:
        server.stop()
        assert server.group_gone(5)


def _game(client: Client, tokens: list[str], options=None) -> int:
    status, _, view = client.call("POST", "/api/games/", {"ruleset": "goat-classic", "seats": len(tokens),
                                                         "options": options or {}}, tokens[0])
    assert status == 201, view
    return view["id"]


def _play_from_streams(run: Run, client: Client, game_id: int, tokens: list[str], streams: list[Stream],
                       drop: int | None = None) -> list[Stream]:
    """Every seat moves only on what its stream said; seat ``drop``'s stream is dropped once mid-game
    and resumed with Last-Event-ID. Returns the resumed streams too."""
    seen = [0] * len(tokens)
    resumed = []
    deadline = time.monotonic() + 240
    dropped = False
    first_version: int | None = None  # of seat ``drop``'s first message: the drop comes a few moves later
    while time.monotonic() < deadline:
        if all(s.closed.is_set() for s in streams):
            return resumed
        for seat, stream in enumerate(streams):
            if len(stream.messages) <= seen[seat]:
                continue
            seen[seat] = len(stream.messages)
            _, kind, _, data = stream.messages[-1]
            view = data if kind == "state" else data["game"]
            if drop == seat and first_version is None:
                first_version = view["version"]
            if view["turn"] == view["your_seat"] and view["legal_moves"] and view["status"] == "running":
                status, _, body = client.call("POST", f"/api/games/{game_id}/moves/", view["legal_moves"][0],
                                              tokens[seat], {"If-Match": f'"{view["version"]}"'})
                assert status in (201, 412), body
            # mid-game, once this seat has acted on what it saw: a few moves on and still running (a
            # short game can end before any fixed version)
            if (drop == seat and not dropped and view["status"] == "running"
                    and view["version"] >= first_version + 4):
                dropped = True
                stream.close()  # first: a message read meanwhile is one the client has seen
                last_id = [m[2] for m in stream.messages if m[2] is not None][-1]
                time.sleep(0.3)  # moves go on meanwhile
                streams[seat] = Stream(run, f"/api/games/{game_id}/stream/", tokens[seat],
                                       headers={"Last-Event-ID": str(last_id)})
                resumed.append(streams[seat])
                seen[seat] = 0
        time.sleep(0.005)
    raise AssertionError("the game did not end from the streams in time")


def _assert_gap_free(events: list[dict], version: int) -> None:
    assert [e["seq"] for e in events] == list(range(events[0]["seq"], version + 1))


@pytest.mark.parametrize("seats", [2, 4])
def test_whole_games_are_played_from_the_streams_alone(run, seats):
    client = Client(run)
    tokens = [client.player(f"s{seats}p{i}{time.monotonic_ns() % 10**6}") for i in range(seats)]
    game_id = _game(client, tokens[:1] + tokens[1:], {"limit": 25})
    streams = [Stream(run, f"/api/games/{game_id}/stream/", tokens[0])]
    for token in tokens[1:]:
        assert client.call("POST", f"/api/games/{game_id}/join/", {}, token)[0] == 200
        streams.append(Stream(run, f"/api/games/{game_id}/stream/", token))
    spectator = Stream(run, f"/api/games/{game_id}/stream/", client.player(f"spec{seats}{time.monotonic_ns() % 10**6}"),
                       ndjson=True)
    _play_from_streams(run, client, game_id, tokens, streams)
    status, _, final = client.call("GET", f"/api/games/{game_id}/", token=tokens[0])
    assert final["status"] == "finished" and final["result"] is not None
    for stream in [*streams, spectator]:
        assert stream.closed.wait(10), "the stream stays open after the game ended"
        kind, data = stream.messages[-1][1], stream.messages[-1][3]
        assert kind == "update" and data["events"][-1]["type"] == "seed_revealed"
        assert data["version"] == final["version"] and data["game"]["result"] == final["result"]
    # the first stream (opened before anyone joined) saw every event after its state exactly once
    first = streams[0]
    assert first.kinds()[0] == "state"
    _assert_gap_free(first.events(), final["version"])
    assert [m[2] for m in first.messages] == sorted({m[2] for m in first.messages})  # ids only rise


def test_a_stream_dropped_mid_game_resumes_without_loss(run):
    client = Client(run)
    tokens = [client.player(f"drop{i}{time.monotonic_ns() % 10**6}") for i in range(2)]
    game_id = _game(client, tokens, {"limit": 25})
    assert client.call("POST", f"/api/games/{game_id}/join/", {}, tokens[1])[0] == 200
    streams = [Stream(run, f"/api/games/{game_id}/stream/", t) for t in tokens]
    original = streams[1]
    resumed = _play_from_streams(run, client, game_id, tokens, streams, drop=1)
    assert len(resumed) == 1
    version = client.call("GET", f"/api/games/{game_id}/", token=tokens[1])[2]["version"]
    before = original.events()
    after = resumed[0].events()
    assert resumed[0].kinds()[0] == "update"  # the missed events as one update, no state
    assert before[-1]["seq"] + 1 == after[0]["seq"]
    assert before[0]["seq"] == original.messages[0][3]["version"] + 1  # right after the state
    _assert_gap_free([*before, *after], version)


def test_a_timeout_by_the_clock_reaches_every_stream(run):
    client = Client(run)
    tokens = [client.player(f"tick{i}{time.monotonic_ns() % 10**6}") for i in range(2)]
    game_id = _game(client, tokens, {"move_time": 2})
    watcher = client.player(f"tickw{time.monotonic_ns() % 10**6}")
    streams = [Stream(run, f"/api/games/{game_id}/stream/", t) for t in tokens]
    streams.append(Stream(run, f"/api/games/{game_id}/stream/", watcher, ndjson=True))
    feed = Stream(run, "/api/stream/", tokens[0], ndjson=True)
    # every stream has read its state before the join starts the clock (the headers come first)
    for stream in streams:
        stream.wait(lambda m: m[1] == "state")
    feed.wait(lambda m: m[1] == "hello")
    assert client.call("POST", f"/api/games/{game_id}/join/", {}, tokens[1])[0] == 200
    running = streams[0].wait(lambda m: m[1] == "update" and m[3]["game"]["status"] == "running")[3]["game"]
    assert running["remaining_ms"] is not None and 0 <= running["remaining_ms"] <= 2000
    assert running["server_time"]
    for stream in streams:
        message = stream.wait(lambda m: m[1] == "update" and any(e["type"] == "timed_out" for e in m[3]["events"]),
                              timeout=30, what="timeout update")
        assert message[3]["game"]["result"]["reason"] == "timeout"
        assert stream.closed.wait(10)
    feed.wait(lambda m: m[1] == "game_ended" and m[3]["game"] == game_id, what="game_ended on the feed")
    assert feed.kinds()[0] == "hello"
    feed.close()


def test_refusals_are_problem_details_before_the_stream(run):
    client = Client(run)
    token = client.player(f"refuse{time.monotonic_ns() % 10**6}")
    game_id = _game(client, [token, token])
    cases = [
        (f"/api/games/{game_id}/stream/", "0" * 40, {}, 401, "authentication_failed"),
        ("/api/stream/", None, {}, 401, "not_authenticated"),
        ("/api/games/987654321/stream/", token, {}, 404, "not_found"),
        (f"/api/games/{game_id}/stream/?after=x", token, {}, 400, "invalid"),
        (f"/api/games/{game_id}/stream/?after=999", token, {}, 400, "invalid"),
        (f"/api/games/{game_id}/stream/?after=%201", token, {}, 400, "invalid"),  # a query's number is its digits
        (f"/api/games/{game_id}/stream/?after=%EF%BC%91", token, {}, 400, "invalid"),  # fullwidth 1
        (f"/api/games/{game_id}/stream/", token, {"Last-Event-ID": "-3"}, 400, "invalid"),
    ]
    for path, tok, headers, status, code in cases:
        stream = Stream(run, path, tok, headers=headers)
        assert (stream.status, stream.body["code"]) == (status, code), path
        assert stream.headers["content-type"] == "application/problem+json"


def test_a_stream_its_client_closes_writes_its_access_line(run):
    client = Client(run)
    token = client.player(f"closer{time.monotonic_ns() % 10**6}")
    game_id = _game(client, [token, token])
    stream = Stream(run, f"/api/games/{game_id}/stream/?closes-its-line", token)
    stream.wait(lambda m: m[1] == "state")
    stream.close()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        lines = [line for line in run.log_path.read_text(errors="replace").splitlines() if "?closes-its-line" in line]
        if lines:
            break
        time.sleep(0.1)
    assert len(lines) == 1 and " 200 " in lines[0], lines


def test_streams_show_what_get_shows_and_no_hidden_tile(run):
    client = Client(run)
    tokens = [client.player(f"hide{i}{time.monotonic_ns() % 10**6}") for i in range(2)]
    spectator = client.player(f"hides{time.monotonic_ns() % 10**6}")
    game_id = _game(client, tokens)
    viewers = [*tokens, spectator, None]  # None: anonymous, a spectator without a login
    streams = [Stream(run, f"/api/games/{game_id}/stream/", t) for t in viewers]
    for stream in streams:  # each has read its state (the headers come first), so the join is an update
        stream.wait(lambda m: m[1] == "state")
    assert client.call("POST", f"/api/games/{game_id}/join/", {}, tokens[1])[0] == 200
    for stream in streams:
        stream.wait(lambda m: m[1] == "update" and m[3]["game"]["status"] == "running")
    staff = client.call("POST", "/api/auth/token/", {"username": "admin", "password": "staff-pass-123"})[2]["token"]
    staff_events = client.call("GET", f"/api/games/{game_id}/events/", token=staff)[2]["events"]
    for seat, token in enumerate(viewers):
        _, _, view = client.call("GET", f"/api/games/{game_id}/", token=token)
        streamed = streams[seat].messages[-1][3]["game"]
        drop = ("server_time", "remaining_ms")
        assert {k: v for k, v in streamed.items() if k not in drop} == {k: v for k, v in view.items() if k not in drop}
        own = set(view["hand"])
        for event in streams[seat].events():
            if event["type"] == "round_dealt":
                for s, hand in enumerate(event["data"]["hands"]):
                    assert isinstance(hand, int) or s == seat, f"seat {seat} sees hand {s}"
                assert isinstance(event["data"]["bazaar"], int)
        # no tile of another seat's hand appears in a hand anywhere in this viewer's stream (a deal
        # done again, attempt 1, may hand another seat a tile this seat held in attempt 0: its own)
        others = set()
        for event in staff_events:
            if event["type"] == "round_dealt":
                for s, hand in enumerate(event["data"]["hands"]):
                    (own if s == seat else others).update(hand)
        assert others and not (others - own) & set(re.findall(r'"(\d-\d)"', _hands_text(streams[seat])))


def _hands_text(stream: Stream) -> str:
    """Every hand a stream showed: the views' hands and the deals' hands."""
    parts = []
    for _, kind, _, data in stream.messages:
        view = data if kind == "state" else data["game"]
        parts.append(json.dumps(view["hand"]))
        for event in data.get("events", []):
            if event["type"] in ("round_dealt", "tile_drawn"):
                parts.append(json.dumps(event["data"]))
    return " ".join(parts)


def test_the_per_token_limit_holds_across_workers_and_frees_on_close(run):
    client = Client(run)
    token = client.player(f"limit{time.monotonic_ns() % 10**6}")
    game_id = _game(client, [token, token])
    open_streams = [Stream(run, f"/api/games/{game_id}/stream/" if i % 2 else "/api/stream/", token)
                    for i in range(PER_TOKEN)]
    assert all(s.status == 200 for s in open_streams)
    for stream in open_streams:
        stream.wait(lambda m: m[1] in ("state", "hello"))
    refused = Stream(run, "/api/stream/", token)
    assert refused.status == 429 and refused.body["code"] == "too_many_streams"
    assert int(refused.headers["retry-after"]) > 0
    open_streams[0].close()
    deadline = time.monotonic() + 10
    while True:
        again = Stream(run, "/api/stream/", token)
        if again.status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert again.status == 200
    assert open_streams[1].wait(lambda m: True) and open_streams[1].keepalives >= 0
    time.sleep(1.5)
    assert open_streams[1].keepalives >= 1  # GOAT_STREAM_KEEPALIVE_SECONDS=1 here
    for stream in [*open_streams[1:], again]:
        stream.close()


def test_the_feed_tells_of_starts_turns_ends_and_rematches(run):
    client = Client(run)
    tokens = [client.player(f"feed{i}{time.monotonic_ns() % 10**6}") for i in range(2)]
    feeds = [Stream(run, "/api/stream/", t, ndjson=True) for t in tokens]
    for feed in feeds:
        assert feed.wait(lambda m: m[1] == "hello")[3] == {"games": []}
    game_id = _game(client, tokens)
    assert client.call("POST", f"/api/games/{game_id}/join/", {}, tokens[1])[0] == 200
    for feed in feeds:
        feed.wait(lambda m: m[1] == "game_started" and m[3]["game"] == game_id)
    _, _, view = client.call("GET", f"/api/games/{game_id}/", token=tokens[0])
    feeds[view["turn"]].wait(lambda m: m[1] == "your_turn" and m[3]["game"] == game_id)
    assert client.call("POST", f"/api/games/{game_id}/resign/", None, tokens[0])[0] == 200
    for feed in feeds:
        feed.wait(lambda m: m[1] == "game_ended" and m[3]["result"]["reason"] == "resigned")
    status, _, offered = client.call("POST", f"/api/games/{game_id}/rematch/", None, tokens[1])
    assert status == 201 and offered["your_seat"] == 0
    feeds[0].wait(lambda m: m[1] == "rematch_offered" and m[3]["game"] == offered["id"])
    status, _, again = client.call("POST", f"/api/games/{game_id}/rematch/", None, tokens[0])
    assert status == 200 and again["id"] == offered["id"]
    _, _, lobby = client.call("GET", "/api/games/?status=waiting&open=true", token=tokens[0])
    assert offered["id"] in [g["id"] for g in lobby["results"]]
    _, _, lobby = client.call("GET", "/api/games/?status=waiting&open=true", token=tokens[1])
    assert offered["id"] not in [g["id"] for g in lobby["results"]]  # already seated there
    _, _, mine = client.call("GET", "/api/players/me/games/", token=tokens[1])
    assert [g["id"] for g in mine["results"]] == [offered["id"], game_id]  # newest first
    _, _, mine = client.call("GET", "/api/players/me/games/", token=tokens[0])
    assert [g["id"] for g in mine["results"]] == [game_id]  # not seated at the offer yet
    _, _, mine = client.call("GET", "/api/players/me/games/?status=waiting", token=tokens[1])
    assert [g["id"] for g in mine["results"]] == [offered["id"]]
    _, _, mine = client.call("GET", "/api/players/me/games/?status=interrupted", token=tokens[0])
    assert [g["id"] for g in mine["results"]] == [game_id]
    for feed in feeds:
        feed.close()


def test_the_live_play_client_of_the_api_guide_plays_a_game(run, tmp_path):
    text = (REPO / "docs" / "api.md").read_text()
    section = text[text.index("## Live play"):]
    code = section[section.index("```python") + len("```python"):]
    code = code[:code.index("```")]
    client_file = tmp_path / "client.py"
    client_file.write_text(code)
    client = Client(run)
    tokens = [client.player(f"doc{i}{time.monotonic_ns() % 10**6}") for i in range(2)]
    game_id = _game(client, tokens, {"limit": 15})
    assert client.call("POST", f"/api/games/{game_id}/join/", {}, tokens[1])[0] == 200
    import subprocess

    players = [subprocess.Popen([sys.executable, str(client_file), run.base, t, str(game_id)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE) for t in tokens]
    outputs = [p.communicate(timeout=180) for p in players]
    assert all(p.returncode == 0 for p in players), outputs
    _, _, final = client.call("GET", f"/api/games/{game_id}/", token=tokens[0])
    assert final["status"] == "finished"
    assert [json.loads(out) for out, _ in outputs] == [final["result"]] * 2


def test_a_game_against_computers_is_played_on_the_embedded_broker(run):
    """The computers' moves are tasks on the filesystem broker, run by the worker of `manage.py run`: the
    one human plays from the game stream alone and the game ends, unrated, and verifies."""
    client = Client(run)
    token = client.player("versus-computers")
    status, _, view = client.call("POST", "/api/games/", {"ruleset": "domino-3rounds", "seats": 3,
                                                          "computer_players": 2, "computer_level": "strong",
                                                          "options": {"move_time": 60}}, token)
    assert status == 201, view
    assert view["status"] == "running" and view["rated"] is False
    assert [s["computer"] for s in view["seats"]] == [False, True, True]
    stream = Stream(run, f"/api/games/{view['id']}/stream/", token)
    _play_from_streams(run, client, view["id"], [token], [stream])
    status, _, ended = client.call("GET", f"/api/games/{view['id']}/", None, token)
    assert ended["status"] == "finished" and ended["result"] is not None
    status, _, verified = client.call("GET", f"/api/games/{view['id']}/verify/", None, token)
    assert verified["replay"] and verified["hash_chain"] and verified["deals"]
    _, _, log = client.call("GET", f"/api/games/{view['id']}/events/", None, token)
    assert {e["seat"] for e in log["events"] if e["type"] == "tile_played"} == {0, 1, 2}


def test_ctrl_c_ends_the_streams_and_leaves_no_process(run):
    """Ctrl-C stops the module's server with streams open on it: this test comes last in the module (the
    fixture's stop then finds nothing left to stop), so no second server is started for it."""
    client = Client(run)
    token = client.player("ctrlc")
    game_id = _game(client, [token, token])
    streams = [Stream(run, f"/api/games/{game_id}/stream/", token), Stream(run, "/api/stream/", token)]
    for stream in streams:
        stream.wait(lambda m: True)
    os.kill(run.proc.pid, signal.SIGINT)
    for stream in streams:
        # within gunicorn's graceful timeout (20 s): a stream that held its worker would end only when
        # gunicorn killed the worker
        assert stream.closed.wait(15), "a stream outlived Ctrl-C"
    assert run.proc.wait(timeout=25) == 0
    # nothing was forced: no gunicorn worker killed, no child of run killed after its stop timeout (how
    # long the Celery workers take to stop is their own affair, and the machine's pace)
    stopping = run.log_path.read_text(errors="replace").split("SIGINT: stopping", 1)[1]
    assert "SIGKILL" not in stopping and "did not stop" not in stopping, stopping[-3000:]
    assert run.group_gone(5), "a process of run outlived Ctrl-C"
