"""A goat bot (docs/api.md "Write a bot"): python examples/goat_bot.py http://localhost:8000 TOKEN

It makes its account a bot's (once; the account must have played no game), listens to
GET /api/bot/stream/events/, accepts every challenge for a ruleset it knows, follows each game that
starts on the game's own stream and answers with a move whenever it is its turn: the legal move that
sheds the most pips (a heavy tile left in hand counts against it when someone goes out). Standard
library only. Options: --rulesets, --challenge NAME (challenge that player at the start), --games N
(stop after N finished games).
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
from urllib.parse import urlsplit

KNOWN = ["goat-classic", "goat-gamesburg", "domino-3rounds"]


class Api:
    """JSON over one HTTP connection per thread, with the bot's token."""

    def __init__(self, base: str, token: str):
        self.url, self.auth = urlsplit(base), {"Authorization": f"Token {token}"}
        self.local = threading.local()

    def connection(self, timeout: float = 30) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=timeout)

    def call(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        for attempt in (1, 2):  # a kept-alive connection the server closed meanwhile: once more, on a new one
            if getattr(self.local, "conn", None) is None:
                self.local.conn = self.connection()
            try:
                self.local.conn.request(method, path, body=None if body is None else json.dumps(body), headers={
                    **self.auth, "Content-Type": "application/json", **(headers or {})})
                response = self.local.conn.getresponse()
                raw = response.read()
                return response.status, json.loads(raw) if raw else None
            except (http.client.HTTPException, ConnectionError):
                self.local.conn = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def lines(self, path: str):
        """The NDJSON messages of a stream, until the server closes it (keep-alives skipped)."""
        conn = self.connection(timeout=60)
        conn.request("GET", path, headers={**self.auth, "Accept": "application/x-ndjson"})
        response = conn.getresponse()
        if response.status != 200:
            raise SystemExit(f"{path}: {response.status} {response.read().decode()}")
        for line in response:
            if line.strip():
                yield json.loads(line)


def best(legal: list[dict]) -> dict:
    """The legal move that sheds the most pips (the first of equals)."""
    return max(legal, key=lambda move: sum(int(pips) for pips in move["tile"].split("-")))


def play(api: Api, game_id: int) -> dict:
    """Follow the game's stream and move whenever it is our turn; returns the last view (the end)."""
    game: dict = {}
    for message in api.lines(f"/api/games/{game_id}/stream/"):
        game = message if message["kind"] == "state" else message["game"]
        if game["turn"] is not None and game["turn"] == game["your_seat"] and game["legal_moves"]:
            status, answer = api.call("POST", f"/api/games/{game_id}/moves/", best(game["legal_moves"]),
                                      headers={"If-Match": f'"{game["version"]}"'})
            if status not in (201, 412):  # 412: the game moved on; the next update says how
                print(f"game {game_id}: move refused: {status} {answer}", file=sys.stderr)
    return game


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("token")
    parser.add_argument("--rulesets", default=",".join(KNOWN), help="comma-separated")
    parser.add_argument("--challenge", help="challenge this player at the start")
    parser.add_argument("--games", type=int, default=0, help="stop after this many finished games (0: never)")
    args = parser.parse_args(argv)
    api, rulesets = Api(args.base, args.token), [r for r in args.rulesets.split(",") if r in KNOWN]
    status, me = api.call("POST", "/api/bot/account/upgrade/", {"rulesets": rulesets})
    if status != 200:
        raise SystemExit(f"upgrade: {status} {me}")
    print(f"bot {me['username']} ready for {', '.join(rulesets)}", flush=True)
    if args.challenge:
        status, sent = api.call("POST", "/api/challenges/", {"opponents": [args.challenge], "ruleset": rulesets[0],
                                                             "rated": False, "options": {"limit": 25}})
        print(f"challenged {args.challenge}: {status} {sent.get('id') if sent else ''}", flush=True)
    playing: set[int] = set()
    finished = 0
    for message in api.lines("/api/bot/stream/events/"):
        if message["kind"] == "challenge" and message["event"] == "created":
            challenge = message["challenge"]
            mine = [o for o in challenge["opponents"] if o["player"] == me["username"] and o["answer"] == "pending"]
            if mine and challenge["ruleset"] in rulesets:
                status, _ = api.call("POST", f"/api/challenges/{challenge['id']}/accept/", {})
                print(f"accepted challenge {challenge['id']} from {challenge['challenger']}: {status}", flush=True)
            elif mine:
                api.call("POST", f"/api/challenges/{challenge['id']}/decline/", {"reason": "ruleset"})
        elif message["kind"] == "game_start" and message["game"] not in playing:
            playing.add(message["game"])
            threading.Thread(target=play, args=(api, message["game"]), daemon=True).start()
            print(f"playing game {message['game']}", flush=True)
        elif message["kind"] == "game_finish":
            finished += 1
            print(f"game {message['game']} finished: {json.dumps(message['result'])}", flush=True)
            if args.games and finished >= args.games:
                return


if __name__ == "__main__":
    main()
