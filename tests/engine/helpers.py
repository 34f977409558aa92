"""Builders for engine tests: games created through ``decide`` and tables set up by hand.

No Django, no database: everything here is the pure engine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from goat.engine.rules import CreateGame, PlayTile, TakeSeat, decide
from goat.engine.state import GameState
from goat.engine.tiles import ALL_TILES, Tile, parse_tile, tile_set


def seed_hex(n: int) -> str:
    """A deterministic 64-hex-digit server seed for test number ``n``."""
    return hashlib.sha256(f"test-seed-{n}".encode()).hexdigest()


def tiles(text: str) -> tuple[Tile, ...]:
    """``"1-2 2-6 0-0"`` -> the tiles ``1-2, 2-6, 0-0`` (either order accepted per tile)."""
    return tuple(parse_tile(t) for t in text.split())


def numbered(events: Iterable[Mapping[str, Any]], start: int = 1) -> list[dict[str, Any]]:
    """Copies of ``events`` with ``seq`` set from ``start``."""
    return [{**e, "seq": seq} for seq, e in enumerate(events, start=start)]


def new_game(
    ruleset: str = "goat-classic",
    seats: int = 2,
    options: Mapping[str, Any] | None = None,
    *,
    seed: str | int = 0,
    client_seeds: Iterable[str] | None = None,
) -> tuple[GameState, list[dict[str, Any]]]:
    """A game with every seat taken (so round 1 is dealt); returns the state and the full event log."""
    server_seed = seed if isinstance(seed, str) else seed_hex(seed)
    state, log = decide(None, CreateGame(ruleset=ruleset, seats=seats, server_seed_hex=server_seed,
                                         options=options))
    log = list(log)
    client_seeds = list(client_seeds) if client_seeds is not None else [""] * seats
    for s in range(seats):
        state, events = decide(state, TakeSeat(player=f"p{s}", client_seed=client_seeds[s]))
        log.extend(events)
    return state, log


def waiting_game(ruleset: str = "goat-classic", seats: int = 2, options=None, *, seed: int = 0) -> GameState:
    state, _ = decide(None, CreateGame(ruleset=ruleset, seats=seats, server_seed_hex=seed_hex(seed),
                                       options=options))
    return state


def set_table(
    state: GameState,
    *,
    hands: Iterable[str],
    line: str = "",
    bazaar: str | None = None,
    turn: int = 0,
    must_lead: str | None = None,
    last_player: int | None = None,
) -> GameState:
    """``state`` with the round's table replaced by an exact position.

    ``line`` is the line of play as laid, left to right, each tile oriented (``"5-2 2-1"``); its outer
    halves are the open ends.  ``bazaar`` defaults to every tile neither in a hand nor on the line
    (in canonical order), so that the 28 tiles stay accounted for.
    """
    hand_tiles = tuple(tiles(h) for h in hands)
    laid = tuple(tuple(int(x) for x in t.split("-")) for t in line.split())
    if bazaar is None:
        used = {t for h in hand_tiles for t in h} | {parse_tile(f"{a}-{b}") for a, b in laid}
        bazaar_tiles = tuple(t for t in ALL_TILES if t not in used)
    else:
        bazaar_tiles = tiles(bazaar)
    table = replace(
        state.table,
        hands=hand_tiles,
        bazaar=bazaar_tiles,
        line=laid,
        left=laid[0][0] if laid else None,
        right=laid[-1][1] if laid else None,
        turn=turn,
        must_lead=parse_tile(must_lead) if must_lead else None,
        last_player=last_player if last_player is not None else ((turn - 1) % state.seats if laid else None),
        ended=None,
        held=tuple(tile_set(h) for h in hand_tiles),
        on_line=tile_set(parse_tile(f"{a}-{b}") for a, b in laid),
    )
    return replace(state, table=table)


def play(state: GameState, seat: int, tile: str, end: str | None = None):
    """``decide(state, PlayTile(seat, tile, end))``."""
    return decide(state, PlayTile(seat=seat, tile=tile, end=end))


def types(events: Iterable[Mapping[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def dealt(
    ruleset: str,
    hands: Iterable[str],
    options: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
) -> GameState:
    """A game whose round-1 deal is ``hands`` (the bazaar is every other tile in canonical order).

    The deal is applied as a stored ``round_dealt`` event checked for shape only (it is not the deal
    the seed would produce); the server seed is then given back so that later rounds can be dealt.
    """
    from goat.engine import deal as dealing
    from goat.engine.rules import apply
    from goat.engine.tiles import tile_str

    hand_tiles = [tiles(h) for h in hands]
    seats = len(hand_tiles)
    server_seed = seed_hex(seed)
    created, _ = decide(None, CreateGame(ruleset=ruleset, seats=seats, server_seed_hex=server_seed,
                                         options=options))
    state = replace(created, server_seed=None)
    for s in range(seats):
        state = apply(state, {"type": "seat_taken", "seat": s,
                              "data": {"seat": s, "player": f"p{s}", "client_seed": ""}})
    used = {t for h in hand_tiles for t in h}
    bazaar = [tile_str(t) for t in ALL_TILES if t not in used]
    state = apply(state, {"type": "round_dealt", "seat": None, "data": {
        "round": 1, "attempt": 0, "hands": [[tile_str(t) for t in h] for h in hand_tiles], "bazaar": bazaar,
        "void": bool(state.options.redeal and dealing.needs_redeal(hand_tiles)),
    }})
    return replace(state, server_seed=server_seed)
