"""The detection bench of the fair-play reports (docs/fairplay.md): a simulated population plays
domino-3rounds at three seats; every game is analysed as the analysis task does
(``goat.games.analysis.events_analyse``), and the reports' statistics (``goat.fairplay.stats``) are
run at their documented thresholds.

    python bench/fairplay.py [--honest N] [--assisted N] [--pairs N] [--games N] [--samples S]
                             [--share Q] [--together T] [--seed N] [--json]

The population: ``--honest`` computers whose levels cycle ``random``, ``greedy``, ``strong``;
``--assisted`` players who play as ``strong`` but take the ``expert``'s move a share ``--share`` of
their decisions; ``--pairs`` colluding pairs of ``strong`` players who know each other's hand and,
whenever some of their legal moves leave the partner a playable tile and some do not, play the
strong player's favourite among those that do (feeding the ends, never blocking). Each round every
player plays one game; a colluding pair shares a table a share ``--together`` of the rounds, other
seats are drawn at random. Each player's skill rating is updated after every game as the
``ratings.skill`` projection does (openskill, the same model and ranks), and its band is the reports'
(``stats.band_of`` of the ordinal).

Prints, for each class, how many were flagged of how many, with a 95% Wilson interval, and the false
positives among the honest players (assistance) and the honest pairs that sat together (collusion).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import computer_game, emit, use_database  # noqa: E402
from goat.engine import computer  # noqa: E402
from goat.engine.fold import evolve_all  # noqa: E402
from goat.engine.moves import playable  # noqa: E402
from goat.engine.tiles import TEXT  # noqa: E402
from goat.fairplay import stats  # noqa: E402

RULESET, SEATS = "domino-3rounds", 3
HONEST_LEVELS = ("random", computer.GREEDY, "strong")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of ``k`` successes in ``n``."""
    if not n:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


class Player:
    def __init__(self, name: str, kind: str, level: str, partner: str | None = None) -> None:
        self.name, self.kind, self.level, self.partner = name, kind, level, partner


def population(args) -> list[Player]:
    players = [Player(f"h{i}", "honest", HONEST_LEVELS[i % len(HONEST_LEVELS)]) for i in range(args.honest)]
    players += [Player(f"a{i}", "assisted", "strong") for i in range(args.assisted)]
    for i in range(args.pairs):
        players += [Player(f"c{i}x", "colluder", "strong", f"c{i}y"),
                    Player(f"c{i}y", "colluder", "strong", f"c{i}x")]
    return players


def tables(players: list[Player], rng: random.Random, together: float) -> list[list[Player]]:
    """One round's tables of three: colluding pairs together a share ``together`` of the rounds."""
    by_name = {p.name: p for p in players}
    pool = list(players)
    rng.shuffle(pool)
    out: list[list[Player]] = []
    placed: set[str] = set()
    for p in pool:
        if p.kind == "colluder" and p.name < p.partner and rng.random() < together:
            out.append([p, by_name[p.partner]])
            placed |= {p.name, p.partner}
    rest = [p for p in pool if p.name not in placed]
    for table in out:
        table.append(rest.pop())
    out += [rest[i:i + SEATS] for i in range(0, len(rest) - len(rest) % SEATS, SEATS)]
    for table in out:
        rng.shuffle(table)
    return out


def choose(player: Player, state, seat: int, view, seen, seated: list[Player], rng: random.Random,
           share: float) -> tuple[str, str]:
    sv = computer.seat_view(view, seen)
    if player.kind == "assisted":
        return computer.choose(sv, "expert" if rng.random() < share else "strong", rng)
    if player.kind == "colluder":
        partner = next((s for s, p in enumerate(seated) if p.name == player.partner), None)
        if partner is not None:
            after = stats.tables_after(state, seat)
            feeding = [move for move, table in after.items() if any(playable(table, partner))]
            if feeding and len(feeding) < len(after):
                scores = {move: score for score, move in computer.move_scores(sv)}
                tile, end = max(feeding, key=lambda move: (scores.get(move, -1e9), rng.random()))
                return TEXT[tile], end
    return computer.choose(sv, player.level, rng)


def played_game(seated: list[Player], rng: random.Random, share: float) -> list[dict]:
    return computer_game(rng, RULESET, [p.name for p in seated],
                         lambda seat, state, view, seen: choose(seated[seat], state, seat, view, seen, seated, rng,
                                                                share))


def simulate(args, samples: int, started: float) -> dict:
    """Play and analyse the population's games: what the statistics read, as JSON-ready data."""
    from django.utils import timezone

    from goat.games import analysis
    from goat.games.models import Game
    from ratings.skill import _skill_model as SKILL_MODEL  # noqa: N812 - the projection's own model
    from ratings.skill import skill_ranks

    if args.resume:  # the same population plays on: its games so far, its generator and ratings as saved
        run = json.loads(Path(args.resume).read_text())
        players = [Player(**p) for p in run["players"]]
        rng = random.Random()
        version, state, gauss = run["rng"]
        rng.setstate((version, tuple(state), gauss))
        analysed = [(game, result) for game, result in run["analysed"]]
        help_rows = [stats.Help(*row) for row in run["helps"]]
        seatings = run["seatings"]
        skill = {name: SKILL_MODEL.rating(mu=mu, sigma=sigma) for name, (mu, sigma) in run["skill"].items()}
        game_no, before, spent = run["games"], run["games_each"], run.get("seconds", 0)
        args.seed, args.share, args.together = run["seed"], run["share"], run["together"]
    else:
        rng = random.Random(args.seed)
        players = population(args)
        analysed, help_rows, seatings = [], [], {}
        skill = {p.name: SKILL_MODEL.rating() for p in players}
        game_no, before, spent = 0, 0, 0
    round_no = -1
    for round_no in range(args.games):  # noqa: B007 - the rounds played are reported
        for seated in tables(players, rng, args.together):
            game_no += 1
            fake = Game(pk=game_no, created_at=timezone.now(), ruleset=RULESET, seats=SEATS)
            events = played_game(seated, rng, args.share)
            key = str(game_no)  # as JSON keeps it
            analysed.append((key, analysis.events_analyse(fake, events, samples=samples)))
            help_rows += stats.helps(key, events)
            seatings[key] = [p.name for p in seated]
            # the skill rating, as the ratings.skill projection updates it
            state = evolve_all(events)
            result = state.result
            ranks = skill_ranks(points=state.points, winners=result.winners, goats=result.goats)
            rated = SKILL_MODEL.rate([[skill[p.name]] for p in seated], ranks=ranks)
            for p, [after] in zip(seated, rated, strict=True):
                skill[p.name] = after
        if not args.json:
            print(f"round {before + round_no + 1}/{before + args.games}: {game_no} games, "
                  f"{time.perf_counter() - started:.0f} s",
                  flush=True)
        if args.minutes is not None and time.perf_counter() - started > args.minutes * 60:
            break
    return {"seed": args.seed, "samples": samples, "share": args.share, "together": args.together,
            "games": game_no, "games_each": before + round_no + 1,
            "seconds": spent + round(time.perf_counter() - started), "players": [p.__dict__ for p in players],
            "analysed": analysed, "helps": [[h.game, h.seq, h.player, h.other, h.helped, h.chance] for h in help_rows],
            "seatings": seatings, "ordinal": {name: rating.ordinal() for name, rating in skill.items()},
            "skill": {name: [rating.mu, rating.sigma] for name, rating in skill.items()}, "rng": rng.getstate()}


def pooled(runs: list[dict]) -> dict:
    """Runs of different seeds as one population: each run's players and games renamed apart."""
    out: dict = {"seed": [r["seed"] for r in runs], "samples": runs[0]["samples"], "share": runs[0]["share"],
                 "together": runs[0]["together"], "games": 0, "games_each": [r["games_each"] for r in runs],
                 "seconds": sum(r.get("seconds") or 0 for r in runs),
                 "players": [], "analysed": [], "helps": [], "seatings": {}, "ordinal": {}}
    for r in runs:
        tag = f"s{r['seed']}:"
        out["games"] += r["games"]
        out["players"] += [{**p, "name": tag + p["name"], "partner": p["partner"] and tag + p["partner"]}
                           for p in r["players"]]
        out["analysed"] += [[tag + game, {**result, "moves": [
            {**m, "player": m["player"] and tag + m["player"]} for m in result["moves"]]}]
            for game, result in r["analysed"]]
        out["helps"] += [[tag + g, seq, tag + a, tag + b, helped, chance]
                         for g, seq, a, b, helped, chance in r["helps"]]
        out["seatings"].update({tag + g: [tag + n for n in names] for g, names in r["seatings"].items()})
        out["ordinal"].update({tag + n: value for n, value in r["ordinal"].items()})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--honest", type=int, default=24)
    parser.add_argument("--assisted", type=int, default=6)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--games", type=int, default=30, help="games each player plays")
    parser.add_argument("--samples", type=int, default=None,
                        help="the analysis's samples (default: GOAT_ANALYSIS_SAMPLES)")
    parser.add_argument("--share", type=float, default=0.5,
                        help="the share of an assisted player's moves that are the expert's")
    parser.add_argument("--together", type=float, default=0.8,
                        help="the share of rounds a colluding pair sits together")
    parser.add_argument("--seed", type=int, default=54)
    parser.add_argument("--minutes", type=float, default=None,
                        help="stop after the round during which this much wall time has passed")
    parser.add_argument("--dump", metavar="FILE", help="write each player's decisions and findings to FILE (JSON)")
    parser.add_argument("--save", metavar="FILE",
                        help="write the simulated population, its games' analyses, seatings and skill ratings to FILE "
                             "(JSON), so that the statistics can be run again on them with --load")
    parser.add_argument("--resume", metavar="FILE",
                        help="play --games more rounds of the population a --save wrote (its generator and ratings "
                             "go on from where they were), then --save (to FILE again unless --save names another)")
    parser.add_argument("--load", metavar="FILE", action="append",
                        help="run the statistics on the games a --save wrote instead of simulating (repeat it to "
                             "pool runs of different seeds: their players are kept apart)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    use_database()
    import django

    django.setup()
    from django.conf import settings

    samples = args.samples or settings.GOAT_ANALYSIS_SAMPLES
    started = time.perf_counter()
    if args.load:
        runs = [json.loads(Path(name).read_text()) for name in args.load]
        run = pooled(runs) if len(runs) > 1 else runs[0]
    else:
        run = simulate(args, samples, started)
        if args.save or args.resume:
            Path(args.save or args.resume).write_text(json.dumps(run))
    players = [Player(**p) for p in run["players"]]
    kinds = {p.name: p for p in players}
    analysed = [(game, result) for game, result in run["analysed"]]
    help_rows = [stats.Help(*row) for row in run["helps"]]
    seatings = run["seatings"]
    ordinal = run["ordinal"]
    samples, game_no, rounds = run["samples"], run["games"], run["games_each"]
    group_of = {name: (RULESET, stats.band_of(value)) for name, value in ordinal.items()}
    qualities = stats.qualities(analysed)
    assist = {f.player: f for f in stats.assistance(qualities, group_of)}
    pairs = {f.pair: f for f in stats.collusion(help_rows, seatings)}

    def rate(names: list[str], flagged) -> dict:
        k = sum(bool(flagged(n)) for n in names)
        low, high = wilson(k, len(names))
        return {"flagged": k, "of": len(names), "rate": round(k / max(1, len(names)), 4),
                "interval": [round(low, 4), round(high, 4)]}

    honest = [p.name for p in players if p.kind == "honest"]
    colluder_pairs = sorted({tuple(sorted((p.name, p.partner))) for p in players if p.kind == "colluder"})
    honest_pairs = [pair for pair in pairs if all(kinds[n].kind != "colluder" for n in pair)]
    mixed_pairs = [pair for pair in pairs if pair not in colluder_pairs and pair not in honest_pairs]
    honest_scores = [assist[n].score for n in honest if n in assist]
    assisted = [p.name for p in players if p.kind == "assisted"]
    strong = [p.name for p in players if p.kind == "honest" and p.level == "strong"]

    def against(reference: list[str], groups: dict) -> dict:
        """Diagnostics the scan cannot have (the bench knows who is honest): every player against a
        population of ``reference`` only."""
        found = {f.player: f for f in stats.assistance(qualities, groups, reference=set(reference))}
        scores = [found[n].score for n in reference if n in found]
        return {"assisted_detected": rate(assisted, lambda n: found.get(n) and found[n].flagged),
                "reference_flagged": rate(reference, lambda n: found.get(n) and found[n].flagged),
                "assisted_scores": sorted(found[n].score for n in assisted if n in found),
                "reference_scores": {"mean": round(statistics.mean(scores), 2), "max": max(scores),
                                     "sd": round(statistics.stdev(scores), 2) if len(scores) > 1 else None}
                if scores else None}

    def spread(names: list[str]) -> dict:
        found = [assist[n] for n in names if n in assist]
        return {"spread_median": round(statistics.median(f.spread for f in found), 4),
                "noise_median": round(statistics.median(f.noise for f in found), 4)} if found else {}

    def ordinals(names: list[str]) -> list[float]:
        values = sorted(ordinal[n] for n in names)
        return [round(values[0], 1), round(statistics.median(values), 1), round(values[-1], 1)]
    out = {
        "bench": "fairplay", "ruleset": RULESET, "seats": SEATS, "samples": samples, "games": game_no,
        "games_each": rounds, "share": run["share"], "together": run["together"], "seed": run["seed"],
        "seconds": run.get("seconds"),
        "thresholds": {"assist_z": stats.ASSIST_Z, "assist_min_decisions": stats.ASSIST_MIN_DECISIONS,
                       "collusion_z": stats.COLLUSION_Z, "seating_z": stats.SEATING_Z,
                       "collusion_min_decisions": stats.COLLUSION_MIN_DECISIONS},
        "assisted_detected": rate([p.name for p in players if p.kind == "assisted"],
                                  lambda n: assist.get(n) and assist[n].flagged),
        "honest_flagged_assistance": rate(honest, lambda n: assist.get(n) and assist[n].flagged),
        "colluders_assistance_flagged": rate([p.name for p in players if p.kind == "colluder"],
                                             lambda n: assist.get(n) and assist[n].flagged),
        "colluding_pairs_detected": rate(colluder_pairs, lambda pair: pairs.get(pair) and pairs[pair].flagged),
        "honest_pairs_flagged": rate(honest_pairs, lambda pair: pairs[pair].flagged),
        "colluder_with_other_pairs_flagged": rate(mixed_pairs, lambda pair: pairs[pair].flagged),
        "honest_players_in_a_flagged_pair": rate(honest, lambda n: any(
            f.flagged and n in f.pair for f in pairs.values())),
        "decisions_median": statistics.median(q.decisions for q in qualities.values()),
        "by_level": {level: {
            "score_median": statistics.median(assist[p.name].score for p in players
                                              if p.kind == "honest" and p.level == level and p.name in assist),
            "score_max": max(assist[p.name].score for p in players
                             if p.kind == "honest" and p.level == level and p.name in assist)}
            for level in HONEST_LEVELS},
        "honest_scores": {"mean": round(statistics.mean(honest_scores), 2),
                          "sd": round(statistics.stdev(honest_scores), 2) if len(honest_scores) > 1 else None,
                          "max": max(honest_scores)} if honest_scores else None,
        "assisted_scores": sorted(assist[p.name].score for p in players if p.kind == "assisted"),
        # why a score stops growing: the band's spread between players against a player's own noise
        "assistance_errors": spread(list(assist)),
        # how far the skill ratings tell the levels apart: each kind's ordinals (lowest, median, highest)
        "ordinals": {level: ordinals([p.name for p in players if p.kind == "honest" and p.level == level])
                     for level in HONEST_LEVELS} | {
            kind: ordinals([p.name for p in players if p.kind == kind]) for kind in ("assisted", "colluder")
            if any(p.kind == kind for p in players)},
        # what a population of honest players only (cheaters as rare as in life), and of honest strong
        # computers only in one band (a band of one strength, which ratings do not give), would make of it
        "against_honest_only": against(honest, group_of),
        "against_strong_only": against(strong, dict.fromkeys(group_of, (RULESET, 0))) if strong else None,
        "colluding_pairs": [{"pair": pair, "help_z": pairs[pair].help_z, "seating_z": pairs[pair].seating_z,
                             "decisions": pairs[pair].decisions} for pair in colluder_pairs],
        "honest_pairs_help_z_max": max((pairs[p].help_z for p in honest_pairs), default=None),
        "honest_pairs_seating_z_max": max((pairs[p].seating_z for p in honest_pairs), default=None),
    }
    if args.dump:
        Path(args.dump).write_text(json.dumps({"players": [{
            "name": p.name, "kind": p.kind, "level": p.level, "group": group_of[p.name],
            "ordinal": ordinal[p.name],
            "quality": {k: getattr(qualities[p.name], k) for k in ("decisions", "loss", "loss_sq", "best")},
            "finding": assist[p.name].__dict__ if p.name in assist else None} for p in players],
            "raw": {p.name: [[m["loss"], m["best"] == m["played"], len(m["legal"])] for _, r in analysed
                             for m in r["moves"] if m["player"] == p.name and not m["forced"]] for p in players},
        }, default=str))
    lines = [f"{key}: {value}" for key, value in out.items() if key != "bench"]
    emit(out, args.json, lines)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
