"""Fair-play statistics (docs/fairplay.md): pure functions over analysed moves and full event logs of
ended games, shared by the staff reports (goat.fairplay.services) and the detection bench
(bench/fairplay.py). No Django: the engine and the standard library only.

**Assistance.** Each player's analysed decisions (moves of the expert's analysis that were not
forced: ``loss`` and its 95% ``loss_interval`` in points, best when the move played is the
analysis's ``best``) are compared with the other players of the same ruleset and rating band. Each
decision gets a grade (:func:`grade`: 0 clearly worse than another move, 1 not clearly worse, 2 the
best, 3 the best with every other move clearly worse); the score is the player's mean grade over the
band's mean grade at decisions of the same difficulty (legal moves), in standard errors that include
how much honest players of the band differ from one another beyond chance (``tau``, a
method-of-moments random effect). The player is flagged when the score reaches ``ASSIST_Z`` with at
least ``ASSIST_MIN_DECISIONS`` decisions; the confidence is the normal probability of the score. The
best-move share and average loss against the band's (``z_best``, ``z_loss``) are shown beside it.

**Collusion.** At every decision of a seat (a tile played with a choice) and for every other seat,
the full log says whether the move played left that seat a tile it can play on the new ends
(``helped``), and what share of the legal moves would have (``chance``). A pair's help score compares,
in both directions, what each did for the other (``helped - chance``) with what they did for the
other seats of the same games; seated together ``together`` times against ``expected`` by chance.
The pair is flagged when both the help score reaches ``COLLUSION_Z`` and the seating score
reaches ``SEATING_Z``, with at least ``COLLUSION_MIN_DECISIONS`` decisions toward each other.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from goat.engine.fold import Fold, evolve
from goat.engine.moves import legal_moves, playable
from goat.engine.tiles import PARSE, TEXT

#: assistance: decisions needed before a player can be flagged, and the score that flags (the one-sided
#: 1% point of the standard normal: under its model an honest player's score is standard normal)
ASSIST_MIN_DECISIONS = 150
ASSIST_Z = 2.33
#: a band needs this many other players with ``BAND_MIN_DECISIONS`` each, else the ruleset's players are used
BAND_MIN_PLAYERS = 5
BAND_MIN_DECISIONS = 20
#: collusion: decisions toward each other needed, the help score and the seating score that flag
COLLUSION_MIN_DECISIONS = 40
COLLUSION_Z = 3.0
SEATING_Z = 3.0
#: skill bands are this many points of the skill rating's ordinal wide (openskill: mu - 3 sigma)
BAND_WIDTH = 5.0


def band_of(ordinal: float) -> int:
    """The skill band: ordinals ``[5k, 5k + 5)`` are band ``k``."""
    return int(ordinal // BAND_WIDTH)


def confidence(z: float) -> float:
    """The standard normal CDF at ``z``: how unlikely so high a score is by chance, as 0..1."""
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


# --- assistance --------------------------------------------------------------------------------------


#: a decision's difficulty class: its legal moves, 2, 3, 4, and 5 or more
DIFFICULTY_CAP = 5


def grade(best: bool, low: float, high: float) -> int:
    """A decision's grade from the analysis of the move played and its 95% loss interval ``[low, high]``:
    0 when another move is clearly better (``low > 0``), 1 when none is clearly better but it is not
    the analysis's best, 2 when it is the best, 3 when it is the best and every other move is clearly
    worse (``high == 0``: every other move's interval lies below it)."""
    if low > 0:
        return 0
    if not best:
        return 1
    return 3 if high <= 0 else 2


def difficulty(legal: int) -> int:
    return min(max(legal, 2), DIFFICULTY_CAP)


@dataclass
class Quality:
    """A player's analysed decisions: their count, summed loss and squared loss, the best ones, and per
    difficulty class (legal moves, :func:`difficulty`) the count, sum and sum of squares of the grades
    (:func:`grade`)."""

    decisions: int = 0
    loss: float = 0.0
    loss_sq: float = 0.0
    best: int = 0
    games: set[Any] = field(default_factory=set)
    grades: dict[int, list[float]] = field(default_factory=dict)

    def add(self, loss: float, best: bool, game: Any = None, *, legal: int = 2,
            interval: Sequence[float] | None = None) -> None:
        """One decision: ``interval`` is the loss's ``[low, high]`` (the loss itself, settled, when not given)."""
        self.decisions += 1
        self.loss += loss
        self.loss_sq += loss * loss
        self.best += best
        if game is not None:
            self.games.add(game)
        low, high = interval if interval is not None else (loss, loss)
        g = grade(best, low, high)
        row = self.grades.setdefault(difficulty(legal), [0, 0.0, 0.0])
        row[0] += 1
        row[1] += g
        row[2] += g * g

    @property
    def average_loss(self) -> float:
        return self.loss / self.decisions if self.decisions else 0.0

    @property
    def best_share(self) -> float:
        return self.best / self.decisions if self.decisions else 0.0


def qualities(analyses: Iterable[tuple[Any, Mapping[str, Any]]]) -> dict[str, Quality]:
    """Each player's :class:`Quality` over ``(game, analysis result)`` pairs: the analysis's moves that
    are not forced (``loss`` and ``loss_interval``; best when ``best`` is the move ``played``)."""
    out: dict[str, Quality] = defaultdict(Quality)
    for game, result in analyses:
        for move in result["moves"]:
            if move["forced"] or move["player"] is None:
                continue
            out[move["player"]].add(float(move["loss"]), move["best"] == move["played"], game,
                                    legal=len(move["legal"]), interval=move.get("loss_interval"))
    return dict(out)


@dataclass(frozen=True)
class AssistanceFinding:
    player: str
    group: Any
    decisions: int
    games: int
    average_loss: float
    best_share: float
    population_loss: float
    population_best_share: float
    population_players: int
    z_best: float
    z_loss: float
    score: float
    confidence: float
    flagged: bool
    #: the player's mean grade, and the band's at decisions of the same difficulty as the player's
    grade: float = 0.0
    population_grade: float = 0.0
    #: the score's two standard errors, in grades: how much the band's players differ beyond chance
    #: (``tau``) and the player's own sampling error (the score is the excess over both combined)
    spread: float = 0.0
    noise: float = 0.0


def _population(others: Sequence[Quality]) -> tuple[float, float, float, float, float]:
    """``p0, m0, s0, tau_best², tau_loss²`` of the players ``others`` (pooled over their decisions)."""
    n = sum(q.decisions for q in others)
    p0 = sum(q.best for q in others) / n
    m0 = sum(q.loss for q in others) / n
    s0 = math.sqrt(max(1e-9, sum(q.loss_sq for q in others) / n - m0 * m0))
    counted = [q for q in others if q.decisions >= BAND_MIN_DECISIONS]
    tau_b = _tau([(q.best_share - p0, p0 * (1 - p0) / q.decisions) for q in counted])
    tau_l = _tau([(q.average_loss - m0, s0 * s0 / q.decisions) for q in counted])
    return p0, m0, s0, tau_b, tau_l


def _tau(rows: Sequence[tuple[float, float]]) -> float:
    """The method-of-moments variance between players beyond chance, from each player's ``(excess over
    the population, its sampling variance)``: 0 with fewer than two players."""
    k = len(rows)
    if k < 2:
        return 0.0
    return max(0.0, sum(e * e for e, _ in rows) / (k - 1) - sum(v for _, v in rows) / k)


def _grade_excess(mine: Quality, mean: Mapping[int, float], var: Mapping[int, float]) -> tuple[float, float, int]:
    """``(excess, its sampling variance, decisions)`` of a player's mean grade over what the population
    grades decisions of the same difficulty classes (the classes the population has)."""
    n = excess = variance = 0.0
    for cls, (count, total, _) in mine.grades.items():
        if cls in mean:
            n += count
            excess += total - count * mean[cls]
            variance += count * var[cls]
    if not n:
        return 0.0, 0.0, 0
    return excess / n, variance / (n * n), int(n)


def grade_score(mine: Quality, others: Sequence[Quality]) -> tuple[float, float, float, float, float]:
    """``(score, mean grade, the population's mean grade at the same decisions, tau, the player's
    sampling error)``: the player's mean grade against the population's at decisions of the same
    difficulty class, in standard errors that count how much honest players differ beyond chance
    (``tau``)."""
    pooled: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for q in others:
        for cls, row in q.grades.items():
            for i in range(3):
                pooled[cls][i] += row[i]
    mean = {cls: total / count for cls, (count, total, _) in pooled.items() if count}
    var = {cls: max(1e-6, sq / count - mean[cls] ** 2) for cls, (count, _, sq) in pooled.items() if count}
    excess, variance, n = _grade_excess(mine, mean, var)
    if not n:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    rows = []
    for q in others:
        if q.decisions >= BAND_MIN_DECISIONS:
            e, v, _ = _grade_excess(q, mean, var)
            rows.append((e, v))
    expected = sum(mine.grades[cls][0] * mean[cls] for cls in mine.grades if cls in mean) / n
    tau = _tau(rows)
    k = len(rows)
    if k < 2:
        return excess / math.sqrt(tau + variance), expected + excess, expected, math.sqrt(tau), math.sqrt(variance)
    # a new draw from the band, predicted from k others: its own error, the centre's error, and tau
    # estimated from k players (Student's t with k - 1 degrees of freedom), put on the normal scale
    spread = tau + variance + (tau + sum(v for _, v in rows) / k) / k
    score = t_as_normal(excess / math.sqrt(spread), k - 1)
    return score, expected + excess, expected, math.sqrt(tau), math.sqrt(variance)


def t_as_normal(t: float, df: int) -> float:
    """The standard normal score with the same one-sided probability as Student's ``t`` at ``df``
    degrees of freedom (so one threshold, ``ASSIST_Z``, serves every band size)."""
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2, 0.5, x)  # P(T > |t|)
    p = 1.0 - tail if t > 0 else tail
    return NormalDist().inv_cdf(min(max(p, 1e-15), 1 - 1e-15))


def _betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b) (its continued fraction, Lentz's method)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - _betainc(b, a, 1.0 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-14:
            break
    return front * f


def assistance(players: Mapping[str, Quality], group_of: Mapping[str, Any],
               reference: Collection[str] | None = None) -> list[AssistanceFinding]:
    """A finding per player with decisions, against the other players of their group (ruleset and
    rating band; the ruleset's players when the band has too few). ``group_of[player]`` is
    ``(ruleset, band)``. ``reference``: the players who may make up a population (all of them when
    not given), e.g. without accounts known to have cheated; every player gets a finding either way."""
    by_group: dict[Any, list[str]] = defaultdict(list)
    by_ruleset: dict[Any, list[str]] = defaultdict(list)
    for player in players:
        if reference is not None and player not in reference:
            continue
        by_group[group_of[player]].append(player)
        by_ruleset[group_of[player][0]].append(player)
    findings = []
    for player, mine in players.items():
        if not mine.decisions:
            continue
        group = group_of[player]
        others = [players[p] for p in by_group[group] if p != player]
        if sum(q.decisions >= BAND_MIN_DECISIONS for q in others) < BAND_MIN_PLAYERS:
            group = (group[0], None)
            others = [players[p] for p in by_ruleset[group[0]] if p != player]
        if not others or not sum(q.decisions for q in others):
            continue
        p0, m0, s0, tau_b, tau_l = _population(others)
        n = mine.decisions
        z_best = (mine.best_share - p0) / math.sqrt(tau_b + max(p0 * (1 - p0), 1e-6) / n)
        z_loss = (m0 - mine.average_loss) / math.sqrt(tau_l + s0 * s0 / n)
        score, grade_mean, expected, spread, noise = grade_score(mine, others)
        findings.append(AssistanceFinding(
            player, group, n, len(mine.games), round(mine.average_loss, 3), round(mine.best_share, 4), round(m0, 3),
            round(p0, 4), len(others), round(z_best, 2), round(z_loss, 2), round(score, 2),
            round(confidence(score), 4), n >= ASSIST_MIN_DECISIONS and score >= ASSIST_Z,
            round(grade_mean, 3), round(expected, 3), round(spread, 4), round(noise, 4)))
    return findings


# --- collusion ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Help:
    """At the decision ``seq`` of ``game``, ``player`` did (``helped``) or did not leave ``other`` a
    playable tile, where ``chance`` of the legal moves would have."""

    game: Any
    seq: int
    player: str
    other: str
    helped: bool
    chance: float


def helps(game: Any, events: Sequence[Mapping[str, Any]]) -> list[Help]:
    """The :class:`Help` of every decision of an ended game's full (unredacted) log, toward every other
    seat. A decision counts toward a seat only when some legal moves would leave it a playable tile and
    some would not, and the move played does not end the round."""
    fold = Fold(check=False)
    out: list[Help] = []
    for event in events:
        if event["type"] == "tile_played":
            state = fold.state
            assert state is not None
            seat = event["seat"]
            if len(legal_moves(state, seat)) > 1:
                out.extend(_decision(game, event, state, seat))
        fold.push(event)
    return out


def tables_after(state: Any, seat: int) -> dict[tuple[Any, str], Any]:
    """For each legal move of ``seat`` that does not end the round, the table it leaves."""
    after = {}
    for tile, end in legal_moves(state, seat):
        table = evolve(state, {"type": "tile_played", "seat": seat, "data": {"tile": TEXT[tile], "end": end}}).table
        if table is not None and table.ended is None:  # a move that ends the round leaves nobody a move
            after[(tile, end)] = table
    return after


def _decision(game: Any, event: Mapping[str, Any], state: Any, seat: int) -> list[Help]:
    after = tables_after(state, seat)
    played = (PARSE[event["data"]["tile"]], event["data"]["end"])
    if played not in after or len(after) < 2:
        return []
    out = []
    for other in range(state.seats):
        if other == seat:
            continue
        can = {move: any(playable(table, other)) for move, table in after.items()}
        chance = sum(can.values()) / len(can)
        if 0.0 < chance < 1.0:
            out.append(Help(game, event["seq"], state.players[seat], state.players[other], can[played], chance))
    return out


@dataclass(frozen=True)
class CollusionFinding:
    pair: tuple[str, str]
    games_together: int
    expected_together: float
    seating_z: float
    decisions: int
    helped: int
    expected_helped: float
    help_z: float
    confidence: float
    flagged: bool
    #: the decisions where one of the pair left the other a move that most of the legal moves would not
    evidence: list[Help]


def _excess(rows: Sequence[Help]) -> tuple[float, float, int]:
    """Mean of ``helped - chance``, its variance per decision, and the count."""
    n = len(rows)
    if not n:
        return 0.0, 0.0, 0
    return (sum(h.helped - h.chance for h in rows) / n, sum(h.chance * (1 - h.chance) for h in rows) / n, n)


def collusion(rows: Iterable[Help], seatings: Mapping[Any, Sequence[str]], *, evidence: int = 20
              ) -> list[CollusionFinding]:
    """A finding per pair that sat together at some game of ``seatings`` (game -> its players), from
    the :class:`Help` rows of those games."""
    rows = list(rows)
    toward: dict[tuple[str, str], list[Help]] = defaultdict(list)
    games_of: dict[str, set[Any]] = defaultdict(set)
    for game, players in seatings.items():
        for p in players:
            games_of[p].add(game)
    for h in rows:
        toward[(h.player, h.other)].append(h)
    # each player's rows toward everyone, to compare a pair with the other seats of the same games
    by_player: dict[str, list[Help]] = defaultdict(list)
    for h in rows:
        by_player[h.player].append(h)
    seat_total = sum(len(players) for players in seatings.values())
    findings = []
    pairs = {tuple(sorted((a, b))) for players in seatings.values() for a in players for b in players if a < b}
    for a, b in sorted(pairs):
        together = games_of[a] & games_of[b]
        # B's share of the seats A's games could have given to others, times those seats
        chairs = sum(len(seatings[g]) - 1 for g in games_of[a])
        expected = chairs * len(games_of[b]) / max(1, seat_total - len(games_of[a]))
        seating_z = (len(together) - expected) / math.sqrt(max(expected, 1e-9))
        zs, decisions, helped, expected_helped, chosen = [], 0, 0, 0.0, []
        for x, y in ((a, b), (b, a)):
            mine = toward[(x, y)]
            others = [h for h in by_player[x] if h.other != y and h.game in together]
            mean_p, var_p, n_p = _excess(mine)
            mean_o, var_o, n_o = _excess(others)
            decisions += n_p
            helped += sum(h.helped for h in mine)
            expected_helped += sum(h.chance for h in mine)
            chosen += [h for h in mine if h.helped and h.chance <= 0.5]
            if n_p and n_o:
                zs.append((mean_p - mean_o) / math.sqrt(max(var_p / n_p + var_o / n_o, 1e-9)))
            elif n_p:
                zs.append(mean_p / math.sqrt(max(var_p / n_p, 1e-9)))
        help_z = sum(zs) / math.sqrt(len(zs)) if zs else 0.0
        flagged = decisions >= COLLUSION_MIN_DECISIONS and help_z >= COLLUSION_Z and seating_z >= SEATING_Z
        chosen.sort(key=lambda h: h.chance)
        findings.append(CollusionFinding((a, b), len(together), round(expected, 2), round(seating_z, 2), decisions,
                                         helped, round(expected_helped, 2), round(help_z, 2),
                                         round(confidence(help_z), 4), flagged, chosen[:evidence]))
    return findings
