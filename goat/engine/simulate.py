"""Random legal games, for tests, benchmarks and demos. Deterministic for a given seed."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from time import gmtime, strftime
from typing import Any

from .rules import PLAY, Command, CreateGame, PlayTile, Resign, Session, TakeSeat, TimeOut
from .rulesets import Options

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
_EPOCH_SECONDS = int(EPOCH.timestamp())


def simulate_game(
    rng: random.Random,
    *,
    ruleset: str,
    seats: int,
    options: Mapping[str, Any] | None = None,
    interrupt_chance: float = 0.1,
    max_moves: int = 10_000,
) -> list[dict[str, Any]]:
    """One random legal game as a full, unredacted event log (with ``seq`` and ``at``).

    With probability ``interrupt_chance`` the game is cut short by a timeout or a resignation at a
    random move, so that both endings of docs/rules.md §9 are exercised.
    """
    server_seed = rng.getrandbits(256).to_bytes(32, "big").hex()
    game = Session()
    log = game.decide(CreateGame(ruleset=ruleset, seats=seats, server_seed_hex=server_seed, options=options))
    for s in range(seats):
        client_seed = rng.choice(["", f"seed-{rng.randrange(10**6)}", "карл"])
        log.extend(game.decide(TakeSeat(player=f"bot{s}", client_seed=client_seed)))
    move_time = options_of(game).move_time
    stop_at = rng.randrange(1, 200) if rng.random() < interrupt_chance else None
    moves = 0
    while True:
        kind, who = game.pending()
        if kind != PLAY or who is None:
            break
        seat = who
        moves += 1
        command: Command
        if stop_at is not None and moves >= stop_at:
            if rng.random() < 0.5 and move_time > 0:
                command = TimeOut(seat=seat)
            else:
                command = Resign(seat=rng.randrange(seats))
        elif moves > max_moves:  # pragma: no cover - a game always ends well before this
            raise RuntimeError("runaway game")
        else:
            tile, end = rng.choice(game.legal_moves())
            command = PlayTile(seat, tile, end)  # positionally: a keyword call costs more per move
        log.extend(game.decide(command))
    return [{"seq": seq, "type": e["type"], "at": at, "seat": e["seat"], "data": e["data"]}
            for seq, e, at in zip(range(1, len(log) + 1), log, clock(1), strict=False)]


def options_of(game: Session) -> Options:
    state = game.state
    assert state is not None
    return state.options


#: the seconds of a minute as written at the end of a timestamp
_SECONDS = tuple(f"{s:02d}Z" for s in range(60))


def timestamp(seq: int) -> str:
    """The time of event ``seq`` of a simulated game: one second after ``EPOCH`` per event, ISO 8601 UTC."""
    return next(clock(seq))


def clock(first: int) -> Iterator[str]:
    """``timestamp(first)``, ``timestamp(first + 1)``, ...: each minute is written once (``strftime``),
    each second of it is that text and the second's two digits."""
    at = _EPOCH_SECONDS + first
    while True:
        second = at % 60
        minute = strftime("%Y-%m-%dT%H:%M:", gmtime(at - second))
        for text in _SECONDS[second:]:
            yield minute + text
        at += 60 - second


def simulate(*, ruleset: str, seats: int, seed: int, count: int = 1,
             options: Mapping[str, Any] | None = None, interrupt_chance: float = 0.1) -> Iterator[list[dict[str, Any]]]:
    rng = random.Random(seed)
    for _ in range(count):
        yield simulate_game(rng, ruleset=ruleset, seats=seats, options=options, interrupt_chance=interrupt_chance)
