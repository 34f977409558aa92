"""Our rules engine against the ``dominoes`` package (PyPI) on random games: moves per second.

    python bench/engine_vs_peer.py [--moves N] [--repeat R] [--quick] [--json]

Both sides play random legal games in this process until they have made the same number of plays:

* ours: 4-seat ``goat-classic`` games through ``Session`` (``legal_moves`` + ``decide`` on the
  in-memory game: forced draws from the bazaar, scoring, the verifiable deal; every event produced
  as a dict);
* peer: ``dominoes.Game.new()`` (4 players, 7 tiles each, no bazaar) with ``game.make_move(domino,
  left)`` chosen from ``game.valid_moves`` (mutable state, passes handled inside ``make_move``).

Repetitions alternate the two sides; the figure is the ratio of medians, ours / peer. Target >= 1.0.
"""

from __future__ import annotations

import argparse
import random
import sys
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dominoes  # noqa: E402
from _common import emit, interleaved  # noqa: E402

from goat.engine.rules import PLAY, CreateGame, PlayTile, Session, TakeSeat  # noqa: E402

TARGET = 1.0


def ours(moves: int, seed: int) -> int:
    """Random 4-seat goat-classic games until ``moves`` plays; returns the plays made.

    Played through ``Session`` (the engine's in-memory game: the same rules as ``decide``, applied
    in place like the peer's ``make_move``; every event is still produced as a dict).
    """
    rng = random.Random(seed)
    made = 0
    while made < moves:
        game = Session()
        game.decide(CreateGame(ruleset="goat-classic", seats=4,
                               server_seed_hex=rng.getrandbits(256).to_bytes(32, "big").hex()))
        for s in range(4):
            game.decide(TakeSeat(player=f"bot{s}", client_seed=""))
        while made < moves:
            kind, seat = game.pending()
            if kind != PLAY:
                break
            tile, end = rng.choice(game.legal_moves())
            game.decide(PlayTile(seat=seat, tile=tile, end=end))
            made += 1
    return made


def peer(moves: int, seed: int) -> int:
    """Random ``dominoes`` games until ``moves`` plays; returns the plays made."""
    random.seed(seed)  # dominoes deals with the module-level random
    rng = random.Random(seed)
    made = 0
    while made < moves:
        game = dominoes.Game.new()
        while game.result is None and made < moves:
            domino, left = rng.choice(game.valid_moves)
            game.make_move(domino, left)
            made += 1
    return made


def run(moves: int, repeat: int) -> dict:
    ours(200, 0), peer(200, 0)  # warm-up (imports, caches)
    medians = interleaved({"ours": lambda: ours(moves, 1), "peer": lambda: peer(moves, 1)}, repeat)
    ours_rate = moves / medians["ours"]
    peer_rate = moves / medians["peer"]
    ratio = ours_rate / peer_rate
    return {
        "bench": "engine_vs_peer",
        "peer": f"dominoes {metadata.version('dominoes')}",
        "moves": moves, "repeat": repeat,
        "ours_moves_per_s": round(ours_rate), "peer_moves_per_s": round(peer_rate),
        "ratio": round(ratio, 3), "target": f">= {TARGET}", "pass": ratio >= TARGET,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=40_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a few seconds (CI smoke)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.moves, args.repeat = 4_000, 3
    f = run(args.moves, args.repeat)
    emit(f, args.json, [
        f"random games, {f['moves']} plays each side, median of {f['repeat']}",
        f"  ours (goat engine decide)   {f['ours_moves_per_s']:>10,} moves/s",
        f"  peer ({f['peer']})   {f['peer_moves_per_s']:>10,} moves/s",
        f"  ours / peer = {f['ratio']:.2f} (target >= {TARGET}): {'PASS' if f['pass'] else 'MISS'}",
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())
