"""Our rules engine against the ``dominoes`` package (PyPI) on random games: moves per second.

    python bench/engine_vs_peer.py [--moves N] [--repeat R] [--quick] [--json]

Both sides play random legal games in this process until they have made the same number of plays:

* ours: 4-seat ``goat-classic`` games through ``Session`` (``legal_moves`` + ``decide`` on the
  in-memory game: forced draws from the bazaar, scoring, the verifiable deal; every event produced
  as a dict);
* peer: ``dominoes.Game.new()`` (4 players, 7 tiles each, no bazaar) with ``game.make_move(domino,
  left)`` chosen from ``game.valid_moves`` (mutable state, passes handled inside ``make_move``).

* simulate: ``goat.engine.simulate.simulate_game`` over every ruleset and seat count, producing full
  event logs (``seq``, ``at`` timestamps, every forced draw, knock and deal), counted by its plays.

Repetitions alternate the sides; the figures are ratios of medians, ours / peer. Targets: ours >= 1.2,
simulate >= 1.0.
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
from goat.engine.simulate import simulate_game  # noqa: E402

TARGET = 1.2
SIMULATE_TARGET = 1.0
MIXES = [
    ("goat-classic", 2, None), ("goat-classic", 3, {"fish_scoring": "fish_for_one"}), ("goat-classic", 4, None),
    ("goat-gamesburg", 2, None), ("goat-gamesburg", 3, None), ("goat-gamesburg", 4, None),
    ("domino-3rounds", 2, None), ("domino-3rounds", 3, None), ("domino-3rounds", 4, None),
]


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


def simulated(moves: int, seed: int) -> int:
    """Whole simulated games (full event logs) across the mixes until at least ``moves`` plays; the
    plays made (the timed figure is per play, as for the peer)."""
    rng = random.Random(seed)
    made = 0
    n = 0
    while made < moves:
        ruleset, seats, options = MIXES[n % len(MIXES)]
        log = simulate_game(random.Random(rng.getrandbits(32)), ruleset=ruleset, seats=seats, options=options)
        made += sum(1 for e in log if e["type"] == "tile_played")
        n += 1
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
    ours(200, 0), peer(200, 0), simulated(200, 0)  # warm-up (imports)
    simulated_moves = simulated(moves, 1)
    medians = interleaved({"ours": lambda: ours(moves, 1), "peer": lambda: peer(moves, 1),
                           "simulate": lambda: simulated(moves, 1)}, repeat)
    ours_rate = moves / medians["ours"]
    peer_rate = moves / medians["peer"]
    simulate_rate = simulated_moves / medians["simulate"]
    ratio = ours_rate / peer_rate
    simulate_ratio = simulate_rate / peer_rate
    return {
        "bench": "engine_vs_peer",
        "peer": f"dominoes {metadata.version('dominoes')}",
        "moves": moves, "repeat": repeat,
        "ours_moves_per_s": round(ours_rate), "peer_moves_per_s": round(peer_rate),
        "ratio": round(ratio, 3), "target": f">= {TARGET}", "pass": ratio >= TARGET,
        "simulate_moves_per_s": round(simulate_rate), "simulate_ratio": round(simulate_ratio, 3),
        "simulate_target": f">= {SIMULATE_TARGET}", "simulate_pass": simulate_ratio >= SIMULATE_TARGET,
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
        f"  simulate (full logs)        {f['simulate_moves_per_s']:>10,} moves/s",
        f"  ours / peer = {f['ratio']:.2f} (target >= {TARGET}): {'PASS' if f['pass'] else 'MISS'}",
        f"  simulate / peer = {f['simulate_ratio']:.2f} (target >= {SIMULATE_TARGET}): "
        f"{'PASS' if f['simulate_pass'] else 'MISS'}",
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())
