"""The win-chance scale of the expert's objective, fitted to measured games (docs/computer.md
"The win-chance scale").

    python bench/win_chance_fit.py [--games N] [--seed S] [--json]

Plays N games of ``strong`` against ``strong`` per ruleset, in process (bench/bots.py's ``play_game``
machinery: each seat decides from its own view), and records the standings at every round's end
that does not end the game, with how the game ended. Then, by maximum likelihood:

* two-seat domino-3rounds (fixed rounds): P(win | lead L with k rounds to play) = 1 / (1 + e^(-L / s_k)),
  ties left out; ``s_k`` fitted per k, and one ``sigma`` for ``s_k = sigma * sqrt(k)`` (what
  ``goat.engine.expert.ROUND_SPREAD`` holds);
* four-seat goat-classic (goat scoring): P(seat i is the goat) = softmax over seats of
  ``-(limit - points_i - pot / seats) / T``, ``T`` fitted (``GOAT_TEMPERATURE``).

Each fit prints its figure with a 95% interval (the likelihood's curvature, treating the positions
as independent: the several positions of one game are not, so the true intervals are somewhat wider)
and the model's calibration by decile (mean predicted chance, observed share, positions).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import emit  # noqa: E402
from bench.bots import _django  # noqa: E402
from goat.engine import computer  # noqa: E402
from goat.engine.rules import PLAY, CreateGame, PlayTile, Session, TakeSeat  # noqa: E402
from goat.engine.rulesets import resolve_options  # noqa: E402
from goat.engine.scoring import points  # noqa: E402


def standings(rng: random.Random, ruleset: str, seats: int) -> tuple[list[tuple[int, list[int], int]], object]:
    """One game of ``strong`` players: ``(round just played, points per seat, fish pot)`` at each round's
    end that does not end the game, and the result."""
    from django.utils import timezone

    from goat.games import selectors
    from goat.games.models import Game

    session = Session()
    session.decide(CreateGame(ruleset=ruleset, seats=seats,
                              server_seed_hex=rng.getrandbits(256).to_bytes(32, "big").hex()))
    round_events: list[dict] = []
    for seat in range(seats):
        round_events.extend(e for e in session.decide(TakeSeat(player=f"p{seat}")) if e["type"] == "round_dealt")
    fake = Game(pk=1, created_at=timezone.now())
    rows = []
    while True:
        kind, seat = session.pending()
        if kind != PLAY or seat is None:
            break
        state = session.state
        view = selectors.game_view(game=fake, state=state, seat=seat)
        seen = [selectors.redact(e, seat) for e in round_events]
        tile, end = computer.choose(computer.seat_view(view, seen), "strong", rng)
        for event in session.decide(PlayTile(seat, tile, end)):
            if event["type"] == "round_dealt":
                round_events = []
                dealt = session.state
                rows.append((event["data"]["round"] - 1, points(dealt.scores, dealt.options.remembered_counts),
                             dealt.fish_pot))
            round_events.append(event)
    return rows, session.state.result  # type: ignore[union-attr]


def _fit_1d(loglik, low: float, high: float) -> tuple[float, float]:
    """The maximiser of a concave ``loglik`` on [low, high] (golden section) and half a 95% interval from
    its curvature there."""
    a, b = low, high
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(80):
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        if loglik(c) > loglik(d):
            b = d
        else:
            a = c
    best = (a + b) / 2
    h = best * 1e-3
    curvature = (loglik(best + h) - 2 * loglik(best) + loglik(best - h)) / (h * h)
    return best, 1.96 / math.sqrt(-curvature) if curvature < 0 else float("nan")


def fit_rounds(rows: list[tuple[int, float, bool]]) -> dict:
    """``rows``: (rounds left, lead, won). The spread per rounds left and the sigma of all of them."""
    def loglik_of(selected, scale):
        def loglik(s):
            total = 0.0
            for left, lead, won in selected:
                z = lead / (scale(left) * s)
                total += -math.log1p(math.exp(-z)) if won else -math.log1p(math.exp(z))
            return total
        return loglik

    out: dict = {"positions": len(rows), "per_rounds_left": {}}
    for left in sorted({r[0] for r in rows}):
        selected = [r for r in rows if r[0] == left]
        s, half = _fit_1d(loglik_of(selected, lambda _k: 1.0), 1.0, 80.0)
        out["per_rounds_left"][left] = {"positions": len(selected), "spread": round(s, 2), "ci95": round(half, 2)}
    sigma, half = _fit_1d(loglik_of(rows, math.sqrt), 1.0, 80.0)
    out["sigma"], out["sigma_ci95"] = round(sigma, 2), round(half, 2)
    out["calibration"] = _calibration([(1 / (1 + math.exp(-lead / (sigma * math.sqrt(left)))), won)
                                       for left, lead, won in rows])
    return out


def fit_goat(rows: list[tuple[list[float], int]], limit: int) -> dict:
    """``rows``: (counted points per seat, the goat's seat). The softmax temperature."""
    def loglik(t):
        total = 0.0
        for counted, goat in rows:
            logits = [-(limit - p) / t for p in counted]
            top = max(logits)
            total += logits[goat] - top - math.log(sum(math.exp(x - top) for x in logits))
        return total

    temperature, half = _fit_1d(loglik, 1.0, 100.0)
    pairs = []
    for counted, goat in rows:
        weights = [math.exp(-(limit - p) / temperature) for p in counted]
        pairs += [(w / sum(weights), s == goat) for s, w in enumerate(weights)]
    return {"positions": len(rows), "temperature": round(temperature, 2), "ci95": round(half, 2),
            "calibration": _calibration(pairs)}


def _calibration(pairs: list[tuple[float, bool]]) -> list[tuple[float, float, int]]:
    """Per decile of the predicted chance: its mean, the observed share, and the count."""
    pairs = sorted(pairs)
    out = []
    for decile in range(10):
        part = pairs[len(pairs) * decile // 10:len(pairs) * (decile + 1) // 10]
        if part:
            out.append((round(sum(p for p, _ in part) / len(part), 3), round(sum(o for _, o in part) / len(part), 3),
                        len(part)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=57)
    parser.add_argument("--only", help="only this ruleset")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    _django()
    summary: dict = {"bench": "win_chance_fit", "games": args.games, "seed": args.seed}
    lines = []
    started = time.perf_counter()
    if args.only in (None, "domino-3rounds"):
        rows = []
        rng = random.Random(args.seed)
        for _ in range(args.games):
            found, result = standings(rng, "domino-3rounds", 2)
            rounds = 3
            if set(result.winners) == {0, 1}:  # a tied game: left out
                continue
            # seat 0's side of each position (seat 1's is its mirror image: the same information)
            for played, pts, _pot in found:
                rows.append((rounds - played, pts[1] - pts[0], result.winners == (0,)))
        fit = summary["domino-3rounds"] = fit_rounds(rows)
        lines.append(f"domino-3rounds: sigma {fit['sigma']} +- {fit['sigma_ci95']} ({fit['positions']} positions); "
                     + ", ".join(f"{k} left: spread {v['spread']} +- {v['ci95']}"
                                 for k, v in fit["per_rounds_left"].items())
                     + f"; calibration {fit['calibration']}")
        print(lines[-1], flush=True)
    if args.only in (None, "goat-classic"):
        rows_goat = []
        rng = random.Random(args.seed + 1)
        limit = resolve_options("goat-classic", 4).limit
        for _ in range(args.games):
            found, result = standings(rng, "goat-classic", 4)
            if len(result.goats) != 1:
                continue
            for _played, pts, pot in found:
                rows_goat.append(([p + pot / 4 for p in pts], result.goats[0]))
        fit = summary["goat-classic"] = fit_goat(rows_goat, limit)
        lines.append(f"goat-classic: temperature {fit['temperature']} +- {fit['ci95']} ({fit['positions']} "
                     f"positions); calibration {fit['calibration']}")
        print(lines[-1], flush=True)
    summary["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        emit(summary, True, lines)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
