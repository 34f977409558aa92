"""The ``expert`` computer: Perfect Information Monte Carlo over the seat's view (docs/computer.md).

For a decision it samples ``samples`` tables consistent with what the seat knows (:class:`SeatView`:
its own hand, the line, every seat's tile count, the bazaar's size, and the values a seat showed it
lacks by drawing or knocking), uniformly among those deals (:mod:`goat.engine.sampling`), and on
each sampled table plays every distinct legal move and then the rest of the round out through the
engine's rules (:func:`goat.engine.decide.play_round_out`, the rule functions a game runs) with a
cheap policy for every seat that reads only what that seat could know (:class:`PublicPolicy`: no
seat of a playout sees another's sampled hand, which limits strategy fusion; :class:`TreeWalk`, off
by default, searches the first replies with an information-set tree instead). Each candidate's value
is the mean of an objective that scores the round's end as the ruleset does (the engine's own round
scoring: going out, fish, remembered points, the carried pot, the goat limit or the fixed rounds) on
a win-chance scale fitted to measured games. The candidates race (:func:`race`): the tables come in
rounds, a candidate clearly behind the leader is dropped, the survivors get the rest of the budget,
and the best mean is played. The same samples serve every candidate (common random numbers), so
their difference is what the move changes, not the luck of the draw.

It reads nothing but the seat view, so two deals that look alike to the seat give the same choice
for the same random generator; the generator is the caller's (seeded in tests and benches).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from .decide import play_round_out
from .machine import GameMachine, RoundMachine
from .moves import DRAW, Move
from .rounds import place_tile
from .rulesets import Options, parties, partner_of
from .sampling import DealSampler, sample_hands
from .scoring import PlayerScore, points
from .seat import SeatView, choices, is_forced
from .status import RUNNING
from .tiles import BIT, DOUBLES, PIPS, SHOWS, Tile, ends_after

#: samples per decision by default (docs/computer.md: what it costs and how strong it is)
DEFAULT_SAMPLES = 150
#: the expert's race among its candidate moves (:func:`race`, docs/computer.md "Racing"): sampled
#: tables per round, before the candidates clearly behind are dropped
RACE_ROUND = 25
#: a candidate is dropped when the leader's mean beats its own by this many standard errors of their
#: paired difference over the same tables
RACE_Z = 2.5
#: the playouts a decision may spend: ``samples`` tables for each distinct move, and for at least this
#: many moves (so a decision between two or three close moves gets more tables than a fixed share)
RACE_FLOOR = 4
#: a version of the expert (its play and its judgement): stored with every analysis, which is kept per
#: version (a change of the policy, the objective, the samples or the choice among the moves makes
#: another version)
ENGINE_VERSION = "expert-4"

#: the analysis's sampled tables per batch (:func:`judge`)
JUDGE_BATCH = 100
#: the fixed-rounds objective: the spread of the final lead per round still to play, in points (the
#: logistic fitted to strong-vs-strong games: docs/computer.md "The win-chance scale")
ROUND_SPREAD = 13.7
#: the fixed-rounds objective's scale: 50 times (2 * win chance - 1), so that a point of the objective is
#: a percentage point of the chance of winning the game
WIN_SCALE = 50.0
#: the goat objective: how sharply the seat nearest the limit is the likely goat (points; the softmax
#: fitted to strong-vs-strong games: docs/computer.md "The win-chance scale")
GOAT_TEMPERATURE = 10.0
#: the playout policy's bonus for getting rid of a double (it fits only one value)
POLICY_DOUBLE = 4
#: the playout policy's bonus for a move after which the next seat is known to hold nothing that fits
POLICY_BLOCK = 8
#: the race's playouts: the choices after the candidate move (plays with more than one legal move, any
#: seat's) made by an information-set tree shared by all the candidate's sampled tables
#: (:class:`TreeWalk`, docs/computer.md "The information-set tree"); 0, the expert's setting: none,
#: every play of the playout by :class:`PublicPolicy` (the tree was screened and not adopted: it did
#: not win by a margin its interval could show, for 70% more CPU a decision)
TREE_PLIES = 0
#: the tree's exploration: points of the objective times sqrt(ln(availability) / visits) (UCB1 with
#: availability counts)
TREE_C = 20.0


class PublicPolicy:
    """The playouts' cheap policy for every seat (first of equals), reading only what that seat could
    know at the table: its own hand, the line, and what each seat showed it lacks (the view's lacks,
    then every draw and knock of the playout, inferred as :func:`goat.engine.computer.seat_view`
    does). A move scores the tile's pips, ``POLICY_DOUBLE`` more for a double (it fits only one value),
    and ``POLICY_BLOCK`` more when the next seat is known to be blocked on the ends it leaves: it showed
    it lacks both, or every tile showing them is on the line or in the mover's hand. It never reads
    another seat's sampled hand, so no seat of a playout plays with open cards (docs/computer.md,
    "Strategy fusion")."""

    __slots__ = ("lacks", "seat")

    def __init__(self, lacks: Sequence[int], seat: int) -> None:
        self.lacks = list(lacks)
        #: the deciding seat (whose move the playout values)
        self.seat = seat

    def forced(self, g: GameMachine, kind: str, seat: int) -> None:
        """A draw or a knock: the seat showed it holds nothing on the ends (a draw brings unseen tiles,
        so it replaces what was known; a knock adds to it)."""
        t: RoundMachine = g.table  # type: ignore[assignment]
        if t.left is None or t.right is None:
            return
        ends = 1 << t.left | 1 << t.right
        self.lacks[seat] = ends if kind == DRAW else self.lacks[seat] | ends

    def choose(self, g: GameMachine, seat: int, legal: list[Move]) -> Move:
        t: RoundMachine = g.table  # type: ignore[assignment]
        nxt = (seat + 1) % g.seats
        partner = partner_of(g.ruleset, g.seats, seat)
        known = self.lacks[nxt]
        mate = self.lacks[partner] if partner is not None else 0
        seen = t.held[seat] | t.on_line
        left, right = t.left, t.right
        best, best_score = legal[0], -100
        for move in legal:
            tile, end = move
            low, high = ends_after(left, right, tile, end)
            score = PIPS[tile] + (POLICY_DOUBLE if DOUBLES & BIT[tile] else 0)
            ends = 1 << low | 1 << high
            # block the next seat only when it is an opponent, not a partner; never leave the partner
            # ends it showed it lacks
            if nxt != partner and (known & ends == ends or not (SHOWS[low] | SHOWS[high]) & ~seen):
                score += POLICY_BLOCK
            if partner is not None and mate & ends == ends:
                score -= POLICY_BLOCK
            if score > best_score:
                best, best_score = move, score
        return best


class TreeWalk:
    """One playout's walk down a candidate's information-set tree (single-observer information-set
    MCTS, Cowling, Powley and Whitehouse 2012, for the first ``TREE_PLIES`` choices after the
    candidate move; docs/computer.md "Strategy fusion").

    A node is the sequence of plays since the candidate move, as every seat sees them (draws and
    knocks between them are not told apart), so it is shared by every sampled table that reaches it,
    whatever the hidden hands. At a node the seat to play picks among the moves legal on this table:
    first those never tried there (the best of them by :class:`PublicPolicy`), then by UCB1 on its
    own objective with availability counts (a move's exploration term counts the visits in which it
    was legal, not all the node's visits). The choice reads the node's statistics, gathered over all
    the tables, and never the table's hidden hands: a seat's reply is the same whichever deal lies
    behind it, so it cannot block or escape with open cards. Past the tree the policy plays on."""

    __slots__ = ("key", "left", "path", "policy", "tree")

    def __init__(self, tree: dict[tuple[Move, ...], dict[Move, list[float]]], policy: PublicPolicy,
                 plies: int) -> None:
        self.tree = tree
        self.policy = policy
        self.left = plies
        self.key: tuple[Move, ...] = ()
        #: per choice made in the tree: the edge's statistics [visits, value sum, availability] and
        #: the seat that chose
        self.path: list[tuple[list[float], int]] = []

    def choose(self, g: GameMachine, seat: int, legal: list[Move]) -> Move:
        if self.left <= 0 or len(legal) == 1:
            move = self.policy.choose(g, seat, legal)
            if self.left > 0:
                self.key += (move,)
            return move
        node = self.tree.setdefault(self.key, {})
        edges = []
        for move in legal:
            edge = node.get(move)
            if edge is None:
                edge = node[move] = [0.0, 0.0, 0.0]
            edge[2] += 1.0
            edges.append(edge)
        untried = [move for move, edge in zip(legal, edges, strict=True) if edge[0] == 0.0]
        if untried:
            move = self.policy.choose(g, seat, untried)
            edge = node[move]
        else:
            best, move, edge = -math.inf, legal[0], edges[0]
            for candidate, stats in zip(legal, edges, strict=True):
                score = stats[1] / stats[0] + TREE_C * math.sqrt(math.log(stats[2]) / stats[0])
                if score > best:
                    best, move, edge = score, candidate, stats
        self.path.append((edge, seat))
        self.key += (move,)
        self.left -= 1
        return move

    def back_up(self, g: GameMachine) -> None:
        """Add the round's end to every edge walked, each on the objective of the seat that chose it."""
        worth: dict[int, float] = {}
        for edge, seat in self.path:
            value = worth.get(seat)
            if value is None:
                value = worth[seat] = objective(g, seat)
            edge[0] += 1.0
            edge[1] += value


def _machine(view: SeatView, options: Options, hands: list[list[Tile]], bazaar: list[Tile],
             must_lead: Tile | None) -> GameMachine:
    """A machine holding the sampled table: the view's game with these hands and this bazaar (the line
    as its ends and its set of tiles: the rules read no more of it)."""
    g = GameMachine()
    g.ruleset, g.options, g.seats, g.commitment = view.ruleset, options, view.seats, ""
    g.server_seed, g.players, g.client_seeds = None, [""] * view.seats, [""] * view.seats
    g.status, g.round_no, g.next_attempt = RUNNING, view.round, 0
    g.scores = tuple(PlayerScore(*score) for score in view.scores)
    g.fish_pot, g.leader, g.rounds, g.result, g.revealed_seed, g.version, g.stream = (
        view.fish_pot, None, [], None, None, 0, None)
    t = g.table = RoundMachine()
    t.number, t.hands, t.bazaar, t.line = view.round, hands, bazaar, []
    t.left, t.right, t.turn, t.must_lead = view.left, view.right, view.seat, must_lead
    t.last_player, t.ended, t.on_line = view.last_player, None, view.on_line
    held = []
    for hand in hands:
        bits = 0
        for tile in hand:
            bits |= BIT[tile]
        held.append(bits)
    t.held = held
    return g


def _clone(g: GameMachine) -> GameMachine:
    """A machine sharing nothing mutable with ``g`` (the sampled table, for one candidate)."""
    c = GameMachine()
    c.ruleset, c.options, c.seats, c.commitment = g.ruleset, g.options, g.seats, g.commitment
    c.server_seed, c.players, c.client_seeds = None, g.players, g.client_seeds
    c.status, c.round_no, c.next_attempt = g.status, g.round_no, 0
    c.scores, c.fish_pot, c.leader, c.rounds, c.result = g.scores, g.fish_pot, None, [], None
    c.revealed_seed, c.version, c.stream = None, 0, None
    s: RoundMachine = g.table  # type: ignore[assignment]
    t = c.table = RoundMachine()
    t.number, t.hands, t.bazaar, t.line = s.number, [h[:] for h in s.hands], s.bazaar[:], s.line[:]
    t.left, t.right, t.turn, t.must_lead = s.left, s.right, s.turn, s.must_lead
    t.last_player, t.ended, t.held, t.on_line = s.last_player, None, s.held[:], s.on_line
    return c


def objective(g: GameMachine, seat: int) -> float:
    """What the round's end (on the machine, scored by the engine) is worth to ``seat``, in points.

    * Goat scoring: ten times the rating points the seat ends the game with (0 as the goat), or,
      while the game goes on, ``(1 - p) * (100 - points)``: what a finished game pays at those points,
      times the chance ``p`` of not being the goat, the seats nearer the limit (points and the
      carried pot's share) being likelier goats. In a game of pairs ``p`` is the chance that the
      seat's pair is the goats (its partners' weights together), so the objective is the pair's
      result: both partners carry the pair's points and earn the same.
    * Fixed rounds: the chance of winning the game, in percentage points less 50: the lead over the best
      other seat through a logistic whose spread is ``ROUND_SPREAD`` times the square root of the
      rounds still to play (fitted to measured games); at the end 50 for winning outright, 0 for a tie
      and -50 for a loss (plus a hundredth of the lead).
    """
    options = g.options
    result = g.result
    if options.scoring == "goat":
        if result is not None:
            return 10.0 * result.rating_points[seat]
        limit: int = options.limit  # type: ignore[assignment]
        party_of = parties(g.ruleset, g.seats)
        share = g.fish_pot / (max(party_of) + 1)
        counted = [p + share for p in points(g.scores, options.remembered_counts)]
        weights = [math.exp(-(limit - p) / GOAT_TEMPERATURE) for p in counted]
        goat = sum(w for s, w in enumerate(weights) if party_of[s] == party_of[seat]) / sum(weights)
        return (1.0 - goat) * (100.0 - counted[seat])
    totals = points(g.scores, options.remembered_counts)
    rounds: int = options.rounds or 1
    lead = min(p for s, p in enumerate(totals) if s != seat) - totals[seat]
    if result is not None:
        winners = result.winners
        won = 1.0 if winners == (seat,) else 0.0 if seat in winners else -1.0
        return WIN_SCALE * won + 0.01 * lead
    left = max(1, rounds - g.round_no)
    spread = ROUND_SPREAD * math.sqrt(left)
    return WIN_SCALE * (2.0 / (1.0 + math.exp(-lead / spread)) - 1.0)


def _must_lead(view: SeatView) -> Tile | None:
    """The tile the round must open with, as the legal moves show it on an empty line."""
    if view.left is not None:
        return None
    tiles = {tile for tile, _ in view.legal}
    return next(iter(tiles)) if len(tiles) == 1 and len(view.hand) > 1 else None


class Playouts:
    """The playouts of one decision: the sampler of its deals, and the legal moves with the equivalent
    ones (one tile on two ends showing the same value) played out once."""

    __slots__ = ("deals", "distinct", "lacks", "legal", "must_lead", "options", "plies", "same", "trees", "view")

    def __init__(self, view: SeatView, plies: int = 0) -> None:
        if not view.options:
            raise ValueError("the expert needs the game's options in the seat view")
        self.view = view
        self.legal = list(view.legal)
        self.options = Options.from_dict(view.options)
        self.must_lead = _must_lead(view)
        self.deals = DealSampler(view)
        self.lacks = [view.lacks[s] if s < len(view.lacks) else 0 for s in range(view.seats)]
        #: per legal move, the index of the first equivalent one; the distinct moves' indexes
        self.same = choices(self.legal, view.left, view.right)
        self.distinct = [index for index, first in enumerate(self.same) if first == index]
        #: the choices after the candidate move made by its information-set tree (:class:`TreeWalk`; 0:
        #: none, the policy plays the whole round), and per distinct move its tree
        self.plies = plies
        self.trees: dict[int, dict[tuple[Move, ...], dict[Move, list[float]]]] = {}

    def sample(self, rng: random.Random, places: Sequence[int] | None = None) -> list[float]:
        """One sampled table: the objective after each distinct move (or each of ``places``, positions
        in ``distinct``) and the round played out on it."""
        view = self.view
        hands, bazaar = self.deals.draw(rng)
        base = _machine(view, self.options, hands, bazaar, self.must_lead)
        values = []
        for index in self.distinct if places is None else [self.distinct[place] for place in places]:
            tile, end = self.legal[index]
            g = _clone(base)
            place_tile(g, g.table, view.seat, tile, end)  # type: ignore[arg-type]
            policy = PublicPolicy(self.lacks, view.seat)
            if self.plies > 0:
                walk = TreeWalk(self.trees.setdefault(index, {}), policy, self.plies)
                play_round_out(g, walk.choose, policy.forced)
                walk.back_up(g)
            else:
                play_round_out(g, policy.choose, policy.forced)
            values.append(objective(g, view.seat))
        return values


def evaluate(view: SeatView, rng: random.Random, samples: int | None = None) -> list[tuple[Move, float]]:
    """Each legal move with its mean objective over ``samples`` (default :data:`DEFAULT_SAMPLES`) sampled
    tables (higher is better); equivalent moves get the same value."""
    samples = samples or DEFAULT_SAMPLES
    playouts = Playouts(view)
    sums = [0.0] * len(playouts.distinct)
    for _ in range(samples):
        for place, value in enumerate(playouts.sample(rng)):
            sums[place] += value
    place_of = {index: place for place, index in enumerate(playouts.distinct)}
    return [(move, sums[place_of[first]] / samples) for move, first in zip(playouts.legal, playouts.same, strict=True)]


@dataclass(frozen=True, slots=True)
class Judgement:
    """The expert's judgement of one played move (:func:`judge`)."""

    #: the move with the best mean (the first of equals)
    best: Move
    #: the best mean minus the played move's (>= 0), and its 95% interval
    loss: float
    low: float
    high: float
    #: the sampled tables it took
    samples: int


def judge(view: SeatView, played: Move, rng: random.Random, budget: int, thresholds: Sequence[float],
          batch: int = JUDGE_BATCH) -> Judgement:
    """How much ``played`` loses against the best move, sampling in batches of ``batch`` tables until its
    95% interval lies on one side of every threshold in ``thresholds`` (the label is then settled) or
    ``budget`` tables are used (docs/computer.md "Analysis").

    The interval: for each other distinct move m, the paired differences d = value(m) - value(played)
    over the same tables give a mean and a standard error; the loss is at least every m's mean and
    at most the largest, so ``low`` is the largest lower bound (and 0), ``high`` the largest upper
    bound, each at z of 95% shared out over the other moves (Bonferroni), as the best move is picked
    from the same tables."""
    playouts = Playouts(view)
    mine = playouts.distinct.index(playouts.same[playouts.legal.index(played)])
    count = len(playouts.distinct)
    if count == 1:
        return Judgement(played, 0.0, 0.0, 0.0, 0)
    z = NormalDist().inv_cdf(1 - 0.025 / (count - 1))
    sums = [0.0] * count
    #: per other move: the sums of its differences against the played move and of their squares
    diff = [0.0] * count
    diff_sq = [0.0] * count
    n = 0
    while True:
        for _ in range(max(1, min(batch, budget - n))):
            values = playouts.sample(rng)
            base = values[mine]
            for place, value in enumerate(values):
                sums[place] += value
                d = value - base
                diff[place] += d
                diff_sq[place] += d * d
            n += 1
        low = high = 0.0
        for place in range(count):
            if place == mine:
                continue
            mean = diff[place] / n
            spread = math.sqrt(max(0.0, diff_sq[place] - n * mean * mean) / (n - 1)) if n > 1 else 0.0
            margin = z * spread / math.sqrt(n)
            low, high = max(low, mean - margin), max(high, mean + margin)
        if n >= budget or all(low >= threshold or high < threshold for threshold in thresholds):
            break
    best_place = max(range(count), key=lambda place: sums[place])
    loss = max(0.0, (sums[best_place] - sums[mine]) / n)
    return Judgement(playouts.legal[playouts.distinct[best_place]], loss, low, high, n)


def race(view: SeatView, rng: random.Random, samples: int | None = None) -> tuple[Move, int]:
    """The distinct move with the best mean objective after a race, and the tables it took.

    The candidates are played out on the same sampled tables, ``RACE_ROUND`` at a time; after each
    round every candidate whose paired difference to the leader (the leader's value minus its own, on
    the same tables) has a mean above ``RACE_Z`` standard errors is dropped, and the survivors go on.
    The race ends when one candidate is left or the budget is spent: ``samples`` (default
    :data:`DEFAULT_SAMPLES`) tables for each distinct move, counted for at least ``RACE_FLOOR`` moves.
    So a decision whose moves part at once costs a round, and a close one between few moves gets more
    tables than a fixed share would give it, for no more than the fixed share of the costliest
    decisions."""
    samples = samples or DEFAULT_SAMPLES
    playouts = Playouts(view, TREE_PLIES)
    count = len(playouts.distinct)
    budget = samples * max(count, RACE_FLOOR)
    alive = list(range(count))
    sums = [0.0] * count
    #: the sums of the products of two candidates' values over the same tables (what a paired
    #: difference's variance needs)
    products = [[0.0] * count for _ in range(count)]
    n = spent = 0
    while len(alive) > 1 and spent + len(alive) <= budget:
        for _ in range(min(RACE_ROUND, (budget - spent) // len(alive))):
            values = playouts.sample(rng, alive)
            for i, place in enumerate(alive):
                value = values[i]
                sums[place] += value
                row = products[place]
                for j, other in enumerate(alive):
                    row[other] += value * values[j]
            n += 1
            spent += len(alive)
        alive = _survivors(alive, sums, products, n)
    best = max(alive, key=lambda place: (sums[place], -place))
    return playouts.legal[playouts.distinct[best]], n


def _survivors(alive: list[int], sums: list[float], products: list[list[float]], n: int) -> list[int]:
    """The candidates not clearly behind the leader after ``n`` tables (:func:`race`)."""
    if n < 2:
        return alive
    leader = max(alive, key=lambda place: (sums[place], -place))
    lead_mean, lead_square = sums[leader] / n, products[leader][leader]
    kept = []
    for place in alive:
        if place != leader:
            mean = lead_mean - sums[place] / n
            square = lead_square - 2 * products[leader][place] + products[place][place]
            spread = math.sqrt(max(0.0, square - n * mean * mean) / (n - 1))
            if mean > 0 and mean > RACE_Z * spread / math.sqrt(n):
                continue
        kept.append(place)
    return kept


def choose_expert(view: SeatView, rng: random.Random, samples: int | None = None) -> Move:
    """The legal move that wins the race of the distinct moves (:func:`race`); a forced move (one legal
    move, or only equivalent ones) at once."""
    if is_forced(view.legal, view.left, view.right):
        return view.legal[0]
    # the generator for the samples: seeded from the caller's, so a seeded caller repeats its choice
    own = random.Random(rng.getrandbits(64))
    return race(view, own, samples)[0]


__all__ = ["DEFAULT_SAMPLES", "ENGINE_VERSION", "Judgement", "Playouts", "choose_expert", "evaluate", "judge",
           "objective", "race", "sample_hands"]
