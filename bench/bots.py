"""Computer players' strength: ``strong`` against ``random`` and against the plain greedy baseline.

    python bench/bots.py [--games N] [--seed S] [--json] [--reference] [--jobs N] [--record PATH [--resume]]

In process, through the engine (``goat.engine.Session``): N games per pairing (default 2,000), fixed
seeds, the tested player's seat rotated game by game (game i: seat i mod seats), the other seats all
played by the opponent. The tested player decides as the server's task does: from the seat's game
view built by ``goat.games.selectors.game_view`` and the round's events redacted for the seat by
``goat.games.selectors.redact`` (goat.engine.computer.seat_view). ``random`` and ``greedy`` need only
the legal moves, which the engine lists (the same list the view carries).

Figures, each against the opponents measured in the same games (docs/computer.md):

* four-seat goat-classic: how often the tested seat is the goat relative to the mean opponent seat
  (target: at most 0.25x against random, 0.6x against greedy; stretch 0.4x), and its mean rating
  points (as if the game were rated) relative to the opponents' mean (at least 2x / 1.3x);
* two-seat domino-3rounds: the share of games the tested seat won outright (ties counted apart):
  at least 60% against random, 55% against greedy (stretch 60%);
* goat-pairs: the tested level plays both seats of a pair (partners opposite), the opponent the other
  pair; the share of games the tested pair won (the other pair the goats): a pair of strong against a
  pair of random at least 90%, a pair of expert against a pair of strong at least 55% (stretch 60%).
  The pair rotates with the tested seat (game i: seat i mod 4 and its partner).

``--reference`` also measures greedy against random (what the baseline itself is worth).

Game i of a pairing is played from its own seed (the run's seed and i) whatever process plays it, so
``--jobs N`` (the games shared over N processes) gives the figures of a single-process run. A long run
(the expert's games take seconds each) keeps what it played: ``--record PATH`` appends each game's
outcome to PATH as one JSON line when the game ends (emptying PATH first), and ``--resume`` keeps
PATH's lines, counts the games they hold and plays only the others; ``--resume --minutes 0`` reports
what a stopped run played without playing more.
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import emit, percentile, use_database  # noqa: E402
from goat.engine import computer  # noqa: E402
from goat.engine.rules import PLAY, CreateGame, PlayTile, Session, TakeSeat  # noqa: E402
from goat.engine.rulesets import partner_of  # noqa: E402
from goat.engine.seat import SeatView  # noqa: E402

#: the levels that decide from the seat's view (the others need only the legal moves)
VIEW_LEVELS = ("strong", "expert")

#: (ruleset, seats, tested, opponent, targets): each target is (figure, "max"|"min", floor, stretch)
PAIRINGS = [
    ("goat-classic", 4, "strong", "random", [("goat_ratio", "max", 0.25, None), ("points_ratio", "min", 2.0, None)]),
    ("goat-classic", 4, "strong", "greedy", [("goat_ratio", "max", 0.6, 0.4), ("points_ratio", "min", 1.3, None)]),
    ("domino-3rounds", 2, "strong", "random", [("won", "min", 0.60, None)]),
    ("domino-3rounds", 2, "strong", "greedy", [("won", "min", 0.55, 0.60)]),
    ("goat-pairs", 4, "strong", "random", [("won", "min", 0.90, None)]),
]
#: the expert against strong (issues 38 and 57): won share two-seat; goat and rating points ratios
#: four-seat; the CPU time of a decision among more than one distinct move, p99 in ms
EXPERT = [
    ("domino-3rounds", 2, "expert", "strong", [("won", "min", 0.62, 0.65), ("choice_cpu_ms_p99", "max", 150, None)]),
    ("goat-classic", 4, "expert", "strong", [("goat_ratio", "max", 0.5, None), ("points_ratio", "min", 1.15, None),
                                             ("choice_cpu_ms_p99", "max", 150, None)]),
    ("goat-pairs", 4, "expert", "strong", [("won", "min", 0.55, 0.60)]),
]
REFERENCE = [
    ("goat-classic", 4, "greedy", "random", []),
    ("domino-3rounds", 2, "greedy", "random", []),
]


@dataclass
class Tally:
    games: int = 0
    goats: int = 0
    points: int = 0
    won: int = 0
    tied: int = 0
    #: the opponents' seats, summed over games (seats - 1 per game)
    seat_games: int = 0
    seat_goats: int = 0
    seat_points: int = 0
    #: sums over games of x * x, y * y and x * y, where x is the tested seat's figure and y the
    #: opponents' mean in that game (goat: 0 or 1; rating points): what the ratios' intervals need
    goat_sq: list = field(default_factory=lambda: [0.0, 0.0, 0.0])
    points_sq: list = field(default_factory=lambda: [0.0, 0.0, 0.0])
    decisions: int = 0
    decide_seconds: float = 0.0
    #: the tested seat's decisions among more than one legal move, each in seconds
    choice_seconds: list = field(default_factory=list)
    #: the same decisions' CPU time of this process (what a loaded machine's other processes do not add)
    choice_cpu_seconds: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    def add(self, other: Tally) -> None:
        for name in ("games", "goats", "points", "won", "tied", "seat_games", "seat_goats", "seat_points",
                     "decisions", "decide_seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("goat_sq", "points_sq"):
            setattr(self, name, [a + b for a, b in zip(getattr(self, name), getattr(other, name), strict=True)])
        self.choice_seconds += other.choice_seconds
        self.choice_cpu_seconds += other.choice_cpu_seconds

    def to_dict(self) -> dict:
        """The figures as a JSON object (a game's line of ``--record``)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "extra"}

    @classmethod
    def from_dict(cls, data: dict) -> Tally:
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})


class Record:
    """``--record``: each game's outcome (its ``Tally``) as one JSON line of a file, keyed by its pairing,
    run seed and game index. Lines are appended under an exclusive lock, so processes of one run may share
    the file; a line is written whole when its game ends, so a run stopped at any point keeps every game
    it finished."""

    def __init__(self, path: str, ruleset: str, seats: int, tested: str, opponent: str, seed: int):
        self.path = path
        self.key = {"ruleset": ruleset, "seats": seats, "tested": tested, "opponent": opponent, "seed": seed}

    def write(self, index: int, game: Tally) -> None:
        line = (json.dumps({**self.key, "index": index, **game.to_dict()}) + "\n").encode()
        with open(self.path, "ab") as out:
            fcntl.flock(out, fcntl.LOCK_EX)
            try:
                out.write(line)
                out.flush()
            finally:
                fcntl.flock(out, fcntl.LOCK_UN)

    def played(self, games: int) -> dict[int, Tally]:
        """The games below ``games`` this pairing's lines hold, by index (the first line of an index
        counts; a line cut short by a stop is skipped, and ended, so that the next line starts afresh)."""
        found: dict[int, Tally] = {}
        if not os.path.exists(self.path):
            return found
        with open(self.path, "rb+") as raw:
            fcntl.flock(raw, fcntl.LOCK_EX)  # not while a running process writes a line
            try:
                size = raw.seek(0, os.SEEK_END)
                if size:
                    raw.seek(size - 1)
                    if raw.read(1) != b"\n":
                        raw.write(b"\n")
            finally:
                fcntl.flock(raw, fcntl.LOCK_UN)
        with open(self.path, encoding="utf-8") as lines:
            for text in lines:
                try:
                    data = json.loads(text)
                except json.JSONDecodeError:
                    continue
                if all(data.get(k) == v for k, v in self.key.items()) and 0 <= data["index"] < games:
                    found.setdefault(data["index"], Tally.from_dict(data))
        return found


def play_game(rng: random.Random, ruleset: str, seats: int, tested_seat: int, tested: str, opponent: str,
              tally: Tally, watch: Callable[[SeatView], None] | None = None) -> None:
    """One game: ``tested`` at ``tested_seat`` (and at its partner's in a game of pairs), ``opponent``
    everywhere else; adds its outcome to ``tally`` (and hands ``watch`` the tested seat's every seat
    view it decides from). Needs Django set up (the selectors build the seat's view; nothing is
    stored)."""
    from django.utils import timezone

    from goat.games import selectors
    from goat.games.models import Game

    session = Session()
    session.decide(CreateGame(ruleset=ruleset, seats=seats, server_seed_hex=rng.getrandbits(256).to_bytes(32, "big")
                              .hex()))
    round_events: list[dict] = []  # the current round's events, from its round_dealt on
    for seat in range(seats):
        round_events.extend(e for e in session.decide(TakeSeat(player=f"p{seat}")) if e["type"] == "round_dealt")
    fake = Game(pk=1, created_at=timezone.now())  # what the view reads of the row (nothing is stored)
    partner = partner_of(ruleset, seats, tested_seat)
    team = {tested_seat} if partner is None else {tested_seat, partner}
    while True:
        kind, seat = session.pending()
        if kind != PLAY or seat is None:
            break
        level = tested if seat in team else opponent
        if level in VIEW_LEVELS:
            started, cpu = time.perf_counter(), time.process_time()
            state = session.state
            view = selectors.game_view(game=fake, state=state, seat=seat)
            seen = [selectors.redact(e, seat) for e in round_events]
            seat_view = computer.seat_view(view, seen)
            if watch is not None and seat == tested_seat:
                watch(seat_view)
            tile_text, end = computer.choose(seat_view, level, rng)
            command = PlayTile(seat, tile_text, end)
            if seat == tested_seat:
                took = time.perf_counter() - started
                tally.decide_seconds += took
                tally.decisions += 1
                if len(view["legal_moves"]) > 1:
                    tally.choice_seconds.append(took)
                    tally.choice_cpu_seconds.append(time.process_time() - cpu)
        else:
            legal = session.legal_moves()
            tile, end = rng.choice(legal) if level == "random" else computer.choose_greedy(legal, rng)
            command = PlayTile(seat, tile, end)
        for event in session.decide(command):
            if event["type"] == "round_dealt":
                round_events = []
            round_events.append(event)
    result = session.state.result  # type: ignore[union-attr]
    assert result is not None
    tally.games += 1
    others = [s for s in range(seats) if s not in team]
    tally.goats += tested_seat in result.goats
    tally.points += result.rating_points[tested_seat]
    tally.seat_games += len(others)
    tally.seat_goats += sum(s in result.goats for s in others)
    tally.seat_points += sum(result.rating_points[s] for s in others)
    goat, seat_goat = float(tested_seat in result.goats), sum(s in result.goats for s in others) / len(others)
    mine, theirs = result.rating_points[tested_seat], sum(result.rating_points[s] for s in others) / len(others)
    for sums, x, y in ((tally.goat_sq, goat, seat_goat), (tally.points_sq, mine, theirs)):
        sums[0] += x * x
        sums[1] += y * y
        sums[2] += x * y
    winners = set(result.winners)
    if winners == team:
        tally.won += 1
    elif tested_seat in winners:
        tally.tied += 1


def _play_share(ruleset: str, seats: int, tested: str, opponent: str, games: int, seed: int, share: int, shares: int,
                until: float | None, record: Record | None = None, done: frozenset[int] = frozenset()) -> Tally:
    """The games ``index`` with ``index % shares == share``, in order, up to ``until`` (a wall clock time),
    but those in ``done``; each game's outcome goes to ``record`` as it ends."""
    if tested == "expert" or opponent == "expert":  # a pool worker sets Django up itself
        _django()
    tally = Tally()
    for index in range(share, games, shares):
        if index in done:
            continue
        if until is not None and time.time() >= until:
            break
        rng = random.Random(seed * 1_000_003 + index)
        game = Tally()
        play_game(rng, ruleset, seats, index % seats, tested, opponent, game)
        tally.add(game)
        if record is not None:
            record.write(index, game)
    return tally


def _django() -> None:
    import django
    from django.apps import apps

    if not apps.ready:
        use_database()
        django.setup()


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def measure(ruleset: str, seats: int, tested: str, opponent: str, games: int, seed: int, *, jobs: int = 1,
            until: float | None = None, record: str | None = None, resume: bool = False) -> dict:
    """The figures of ``games`` games (fewer if ``until``, a wall clock time, comes first); ``jobs`` > 1
    plays a share of them in a pool of ``jobs - 1`` worker processes beside this one. ``record``: the
    file each game's line is appended to; ``resume``: the games it already holds count and are not
    played again."""
    started = time.perf_counter()
    log = Record(record, ruleset, seats, tested, opponent, seed) if record else None
    played = log.played(games) if log is not None and resume else {}
    done = frozenset(played)
    tally = Tally()
    for game in played.values():
        tally.add(game)
    args = (ruleset, seats, tested, opponent, games, seed)
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=jobs - 1) as pool:
            futures = [pool.submit(_play_share, *args, share, jobs, until, log, done) for share in range(1, jobs)]
            tally.add(_play_share(*args, 0, jobs, until, log, done))
            for future in futures:
                tally.add(future.result())
    else:
        tally.add(_play_share(*args, 0, 1, until, log, done))
    if not tally.games:
        raise ValueError(f"{ruleset} {tested} vs {opponent}: no game played or recorded")
    elapsed = time.perf_counter() - started
    goat_rate = tally.goats / tally.games
    seat_goat_rate = tally.seat_goats / tally.seat_games
    points = tally.points / tally.games
    seat_points = tally.seat_points / tally.seat_games
    won = tally.won / tally.games
    choices = tally.choice_seconds
    return {
        "ruleset": ruleset, "seats": seats, "tested": tested, "opponent": opponent, "games": tally.games,
        "goat_rate": round(goat_rate, 4), "opponent_goat_rate": round(seat_goat_rate, 4),
        "goat_ratio": round(goat_rate / seat_goat_rate, 3) if seat_goat_rate else None,
        "rating_points": round(points, 3), "opponent_rating_points": round(seat_points, 3),
        "points_ratio": round(points / seat_points, 3) if seat_points else None,
        "goat_ratio_ci95": _round(ratio_ci95(tally.games, goat_rate, seat_goat_rate, tally.goat_sq)),
        "points_ratio_ci95": _round(ratio_ci95(tally.games, points, seat_points, tally.points_sq)),
        "won": round(won, 4), "tied": round(tally.tied / tally.games, 4),
        # a 95% interval of the tested seat's rates (normal approximation of a binomial share)
        "won_ci95": round(1.96 * math.sqrt(won * (1 - won) / tally.games), 4),
        "goat_rate_ci95": round(1.96 * math.sqrt(goat_rate * (1 - goat_rate) / tally.games), 4),
        "seconds": round(elapsed, 1), "resumed": len(played),
        "decision_us": round(tally.decide_seconds / tally.decisions * 1e6, 1) if tally.decisions else None,
        "choices": len(choices),
        "choice_ms_p50": round(percentile(choices, 50) * 1e3, 1) if choices else None,
        "choice_ms_p99": round(percentile(choices, 99) * 1e3, 1) if choices else None,
        "choice_cpu_ms_p50": round(percentile(tally.choice_cpu_seconds, 50) * 1e3, 1) if choices else None,
        "choice_cpu_ms_p99": round(percentile(tally.choice_cpu_seconds, 99) * 1e3, 1) if choices else None,
    }


def ratio_ci95(n: int, x_mean: float, y_mean: float, sums: list) -> float | None:
    """Half the width of a 95% interval of ``x_mean / y_mean`` over ``n`` games (the delta method on
    the per-game pairs, so the tested seat's and its opponents' figures in one game may be correlated)."""
    if n < 2 or not y_mean:
        return None
    ratio = x_mean / y_mean
    xx, yy, xy = (total / n for total in sums)
    # the variance of x - ratio * y over games, whose mean is 0 at the ratio
    spread = xx - 2 * ratio * xy + ratio * ratio * yy - (x_mean - ratio * y_mean) ** 2
    return 1.96 * math.sqrt(max(spread, 0.0) * n / (n - 1) / n) / y_mean


def verdicts(figures: dict, targets: list) -> list[dict]:
    out = []
    for name, sense, floor, stretch in targets:
        value = figures[name]
        ok = value is not None and (value <= floor if sense == "max" else value >= floor)
        entry = {"figure": name, "value": value, "target": f"{'<=' if sense == 'max' else '>='} {floor}",
                 "pass": ok}
        if stretch is not None:
            entry["stretch"] = f"{'<=' if sense == 'max' else '>='} {stretch}"
            entry["stretch_pass"] = value is not None and (value <= stretch if sense == "max" else value >= stretch)
        out.append(entry)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per pairing (default 2000)")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--reference", action="store_true", help="also greedy against random")
    parser.add_argument("--expert", action="store_true", help="only the expert against strong (issues 38, 57)")
    parser.add_argument("--only", help="only the pairings of this ruleset")
    parser.add_argument("--jobs", type=int, default=1, help="processes (this one and jobs - 1 pool workers)")
    parser.add_argument("--minutes", type=float, help="stop each pairing after this many minutes (games fewer)")
    parser.add_argument("--record", help="append each game's outcome to this JSON lines file as it ends")
    parser.add_argument("--resume", action="store_true",
                        help="with --record: count the games the file holds and play only the others")
    args = parser.parse_args()
    if args.resume and not args.record:
        parser.error("--resume needs --record")
    if args.record and not args.resume:
        open(args.record, "w").close()  # a new run: the file holds this run's games only
    _django()
    results, lines = [], []
    pairings = EXPERT if args.expert else PAIRINGS + (REFERENCE if args.reference else [])
    for ruleset, seats, tested, opponent, targets in pairings:
        if args.only and ruleset != args.only:
            continue
        until = time.time() + 60 * args.minutes if args.minutes is not None else None
        figures = measure(ruleset, seats, tested, opponent, args.games, args.seed, jobs=args.jobs, until=until,
                          record=args.record, resume=args.resume)
        figures["targets"] = verdicts(figures, targets)
        results.append(figures)
        line = (f"{ruleset} x{seats}  {tested} vs {opponent}: {figures['games']} games "
                f"({figures['resumed']} of them from the record), "
                f"goat {figures['goat_rate']:.3f} vs {figures['opponent_goat_rate']:.3f} per seat "
                f"(x{figures['goat_ratio']} +- {figures['goat_ratio_ci95']}), rating points "
                f"{figures['rating_points']:.2f} vs {figures['opponent_rating_points']:.2f} "
                f"(x{figures['points_ratio']} +- {figures['points_ratio_ci95']}), "
                f"won {figures['won']:.1%} +- {figures['won_ci95']:.1%} (tied {figures['tied']:.1%}); "
                f"{figures['seconds']} s, {figures['decision_us']} us per decision; choices p50 "
                f"{figures['choice_ms_p50']} ms, p99 {figures['choice_ms_p99']} ms (CPU p50 "
                f"{figures['choice_cpu_ms_p50']} ms, p99 {figures['choice_cpu_ms_p99']} ms)")
        lines.append(line)
        for target in figures["targets"]:
            verdict = "PASS" if target["pass"] else "FAIL"
            stretch = ""
            if "stretch" in target:
                stretch = f"; stretch {target['stretch']}: {'PASS' if target['stretch_pass'] else 'not met'}"
            lines.append(f"    {target['figure']} = {target['value']} (target {target['target']}): {verdict}{stretch}")
        if not args.json:
            print("\n".join(lines[-1 - len(figures["targets"]):]), flush=True)
    passed = all(t["pass"] for r in results for t in r["targets"])
    summary = {"bench": "bots", "games_per_pairing": args.games, "seed": args.seed, "pairings": results,
               "pass": passed}
    if args.json:
        emit(summary, True, lines)
    else:
        print("all margins met" if passed else "some margin NOT met")
    return 0  # the verdict is in the output (as every bench: run_all reads it)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
