"""The fair-play statistics (goat.fairplay.stats, docs/fairplay.md) on planted populations."""

from __future__ import annotations

import random

from goat.engine.simulate import simulate_game
from goat.fairplay import stats


def population(rng: random.Random, *, assisted: str | None = None, decisions: int = 300) -> dict[str, stats.Quality]:
    """Twenty honest players of one band (each with a skill of their own) and, if named, one whose
    moves are the best far more often and lose less."""
    players = {}
    for i in range(20):
        skill = rng.uniform(0.45, 0.6)
        q = stats.Quality()
        for _ in range(decisions):
            best = rng.random() < skill
            q.add(0.0 if best else rng.expovariate(1 / 4), best)
        players[f"p{i}"] = q
    if assisted:
        q = stats.Quality()
        for _ in range(decisions):
            best = rng.random() < 0.8
            q.add(0.0 if best else rng.expovariate(1 / 3), best)
        players[assisted] = q
    return players


def test_an_assisted_player_is_flagged_and_the_honest_are_not():
    players = population(random.Random(1), assisted="bot")
    findings = {f.player: f for f in stats.assistance(players, dict.fromkeys(players, ("goat-classic", 3)))}

    assert findings["bot"].flagged and findings["bot"].confidence > 0.99
    assert not any(f.flagged for name, f in findings.items() if name != "bot")
    assert findings["bot"].population_players == 20 and findings["bot"].decisions == 300


def test_too_few_decisions_are_never_flagged():
    players = population(random.Random(2), assisted="bot", decisions=stats.ASSIST_MIN_DECISIONS - 1)
    findings = {f.player: f for f in stats.assistance(players, dict.fromkeys(players, ("goat-classic", 3)))}

    assert findings["bot"].score >= stats.ASSIST_Z  # as good as ever, but not enough of it
    assert not findings["bot"].flagged


def test_a_band_too_small_is_compared_with_the_whole_ruleset():
    players = population(random.Random(3), assisted="bot")
    groups = dict.fromkeys(players, ("goat-classic", 3)) | {"bot": ("goat-classic", 9)}
    finding = next(f for f in stats.assistance(players, groups) if f.player == "bot")

    assert finding.group == ("goat-classic", None) and finding.population_players == 20


def test_a_decision_is_graded_by_its_loss_interval():
    assert stats.grade(False, 0.4, 6.0) == 0  # another move is clearly better
    assert stats.grade(False, 0.0, 3.0) == 1  # not the best, not clearly worse
    assert stats.grade(True, 0.0, 2.5) == 2  # the best, another move may be as good
    assert stats.grade(True, 0.0, 0.0) == 3  # the best, every other move clearly worse


def test_a_player_is_compared_at_decisions_of_the_same_difficulty():
    """Easy decisions (two legal moves) are found far more often than hard ones (five): a player who
    meets only easy ones, as well as the band does, is not flagged; one who finds the hard ones as often
    as the easy ones is."""
    rng = random.Random(5)

    def player(hard_share: float, hard_best: float, decisions: int = 400) -> stats.Quality:
        q = stats.Quality()
        for _ in range(decisions):
            legal, p = (5, hard_best) if rng.random() < hard_share else (2, 0.8)
            best = rng.random() < p
            q.add(0.0 if best else 3.0, best, legal=legal, interval=(0.0, 2.0) if best else (0.5, 6.0))
        return q

    players = {f"p{i}": player(0.5, 0.3) for i in range(20)} | {"easy": player(0.0, 0.3), "bot": player(0.5, 0.8)}
    findings = {f.player: f for f in stats.assistance(players, dict.fromkeys(players, ("goat-classic", 3)))}

    assert findings["easy"].best_share > findings["p0"].best_share + 0.15 and findings["easy"].z_best > 3
    assert abs(findings["easy"].score) < 2 and not findings["easy"].flagged
    assert findings["bot"].flagged
    assert not any(f.flagged for name, f in findings.items() if name.startswith("p"))


def test_the_score_is_the_excess_over_the_band_spread_and_the_players_own_noise():
    players = population(random.Random(6), assisted="bot")
    f = next(f for f in stats.assistance(players, dict.fromkeys(players, ("goat-classic", 3))) if f.player == "bot")

    assert f.spread > 0 and f.noise > 0  # honest players of population() differ in skill beyond chance
    plain = (f.grade - f.population_grade) / (f.spread ** 2 + f.noise ** 2) ** 0.5
    # less than the plain ratio (the band's centre and spread are estimated from 20 players), still flagged
    assert stats.ASSIST_Z < f.score < plain and f.flagged


def test_students_t_is_put_on_the_normal_scale():
    # the one-sided 99% and 97.5% points of Student's t: 2.764 at 10 degrees of freedom, 3.365 at 5, 2.042 at 30
    for t, df, z in ((2.764, 10, 2.326), (3.365, 5, 2.326), (2.042, 30, 1.960), (-2.764, 10, -2.326), (0.0, 7, 0.0)):
        assert abs(stats.t_as_normal(t, df) - z) < 0.002, (t, df)


def test_honest_players_of_small_bands_are_flagged_at_the_models_rate():
    """Bands of nine honest players who differ in skill: the score is standard normal for each of them
    (the centre and spread estimated from the other eight), so about 1% reach 2.33, not the 2-3% a
    score that took the band's estimates for exact would flag."""
    rng = random.Random(11)
    scores = []
    for band in range(300):
        players = {}
        for i in range(9):
            skill = rng.gauss(0.55, 0.05)
            q = stats.Quality()
            for _ in range(200):
                best = rng.random() < skill
                q.add(0.0 if best else 3.0, best)
            players[f"p{band}-{i}"] = q
        scores += [f.score for f in stats.assistance(players, dict.fromkeys(players, ("goat-classic", band)))]
    share = sum(z >= stats.ASSIST_Z for z in scores) / len(scores)
    assert len(scores) == 2700 and share < 0.017


def test_players_outside_the_reference_get_a_finding_but_make_no_population():
    """A population of ``reference`` only: a second cheater left out of it no longer lifts the band
    (nor widens its spread), so the first one scores higher; both are still scored."""
    players = population(random.Random(7), assisted="bot") | {"bot2": population(random.Random(8), assisted="x")["x"]}
    groups = dict.fromkeys(players, ("goat-classic", 3))
    everyone = {f.player: f for f in stats.assistance(players, groups)}
    honest = {f.player: f for f in stats.assistance(players, groups, reference=[p for p in players if p[0] == "p"])}

    assert set(honest) == set(everyone) and honest["bot"].population_players == 20
    assert everyone["bot"].population_players == 21 and honest["bot"].score > everyone["bot"].score
    assert honest["p0"].population_players == 19 and honest["bot2"].population_players == 20


def test_helps_are_read_from_the_full_log_for_every_other_seat():
    log = simulate_game(random.Random(49), ruleset="domino-3rounds", seats=3, interrupt_chance=0)
    rows = stats.helps(7, log)

    assert rows and all(0 < h.chance < 1 and h.game == 7 and h.player != h.other for h in rows)
    assert {h.player for h in rows} <= {"bot0", "bot1", "bot2"}


def test_a_pair_that_always_feeds_each_other_and_sits_together_is_flagged():
    rng = random.Random(4)
    rows, seatings = [], {}
    names = [f"p{i}" for i in range(12)]
    for game in range(120):
        if game % 2 == 0:
            seated = ["ann", "bob", rng.choice(names)]
        else:
            seated = rng.sample(names, 3)
        seatings[game] = seated
        for player in seated:
            for other in seated:
                if other == player:
                    continue
                for seq in range(3):
                    chance = rng.choice([0.25, 0.5, 0.75])
                    feeds = {player, other} == {"ann", "bob"}
                    rows.append(stats.Help(game, seq, player, other, feeds or rng.random() < chance, chance))
    findings = {f.pair: f for f in stats.collusion(rows, seatings)}

    assert findings[("ann", "bob")].flagged
    assert findings[("ann", "bob")].games_together == 60 and findings[("ann", "bob")].seating_z > stats.SEATING_Z
    assert findings[("ann", "bob")].evidence and all(h.helped and h.chance <= 0.5
                                                     for h in findings[("ann", "bob")].evidence)
    assert not any(f.flagged for pair, f in findings.items() if pair != ("ann", "bob"))


def test_the_statistics_import_no_django():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = ("import sys, goat.fairplay.stats\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework', 'celery')]\n"
            "assert not bad, bad\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
