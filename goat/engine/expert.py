"""The ``expert`` computer: Perfect Information Monte Carlo over the seat's view (docs/computer.md).

For a decision it samples ``samples`` tables consistent with what the seat knows (:class:`SeatView`:
its own hand, the line, every seat's tile count, the bazaar's size, and the values a seat showed it
lacks by drawing or knocking), and on each sampled table plays every legal move and then the rest of
the round out through the engine's rules (:func:`goat.engine.decide.play_round_out`, the rule
functions a game runs) with a cheap policy for every seat. Each candidate's value is the mean of an
objective that scores the round's end as the ruleset does (the engine's own round scoring: going
out, fish, remembered points, the carried pot, the goat limit or the fixed rounds). The best mean
is played. The same samples serve every candidate (common random numbers), so their difference is
what the move changes, not the luck of the draw.

It reads nothing but the seat view, so two deals that look alike to the seat give the same choice
for the same random generator; the generator is the caller's (seeded in tests and benches).
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

from .decide import play_round_out
from .machine import GameMachine, RoundMachine
from .moves import Move
from .rounds import place_tile
from .rulesets import Options
from .sampling import DealSampler, sample_hands
from .scoring import PlayerScore, points
from .status import RUNNING
from .tiles import BIT, DOUBLES, PIPS, SHOWS, Tile, ends_after

if TYPE_CHECKING:
    from .seat import SeatView

#: samples per decision by default (docs/computer.md: what it costs and how strong it is)
DEFAULT_SAMPLES = 150
#: a version of the expert's judgement: stored with every analysis (a change of the policy, the
#: objective or the samples makes analyses not comparable)
ENGINE_VERSION = "expert-2"

#: the fixed-rounds objective: the spread of one round's pip difference (points)
ROUND_SPREAD = 7.0
#: the goat objective: how sharply the seat nearest the limit is the likely goat (points)
GOAT_TEMPERATURE = 12.0
#: the playout policy's bonus for getting rid of a double (it fits only one value)
POLICY_DOUBLE = 4
#: the playout policy's bonus for a move after which the next seat holds nothing that fits
POLICY_BLOCK = 8


def _policy(g: GameMachine, seat: int, legal: list[Move]) -> Move:
    """The playouts' cheap policy (first of equals): the heaviest tile, a double counting a little more,
    and a move that leaves the next seat nothing to play on the new ends (in the sampled table, whose
    hands it reads) counting as much as a heavy tile: that seat must draw or knock."""
    t: RoundMachine = g.table  # type: ignore[assignment]
    following = t.held[(seat + 1) % g.seats]
    left, right = t.left, t.right
    best, best_score = legal[0], -1
    for move in legal:
        tile, end = move
        low, high = ends_after(left, right, tile, end)
        score = PIPS[tile] + (POLICY_DOUBLE if DOUBLES & BIT[tile] else 0)
        if not following & (SHOWS[low] | SHOWS[high]):
            score += POLICY_BLOCK
        if score > best_score:
            best, best_score = move, score
    return best


def _machine(view: SeatView, options: Options, hands: list[list[Tile]], bazaar: list[Tile],
             must_lead: Tile | None) -> GameMachine:
    """A machine holding the sampled table: the view's game with these hands and this bazaar (the line
    as its ends and its set of tiles: the rules read no more of it)."""
    g = GameMachine()
    g.ruleset, g.options, g.seats, g.commitment = "", options, view.seats, ""
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
      carried pot's share) being likelier goats.
    * Fixed rounds: the points behind or ahead of the best other seat, as a chance of winning the game
      (``ROUND_SPREAD`` per round still to play) scaled to points; at the end, winning outright,
      tying or losing.
    """
    options = g.options
    result = g.result
    if options.scoring == "goat":
        if result is not None:
            return 10.0 * result.rating_points[seat]
        limit: int = options.limit  # type: ignore[assignment]
        share = g.fish_pot / g.seats
        counted = [p + share for p in points(g.scores, options.remembered_counts)]
        weights = [math.exp(-(limit - p) / GOAT_TEMPERATURE) for p in counted]
        goat = weights[seat] / sum(weights)
        return (1.0 - goat) * (100.0 - counted[seat])
    totals = points(g.scores, options.remembered_counts)
    rounds: int = options.rounds or 1
    worth = 2.0 * ROUND_SPREAD * math.sqrt(rounds)
    lead = min(p for s, p in enumerate(totals) if s != seat) - totals[seat]
    if result is not None:
        winners = result.winners
        won = 1.0 if winners == (seat,) else 0.0 if seat in winners else -1.0
        return worth * won + 0.01 * lead
    left = max(1, rounds - g.round_no)
    spread = ROUND_SPREAD * math.sqrt(left)
    return worth * (2.0 / (1.0 + math.exp(-lead / spread)) - 1.0)


def _must_lead(view: SeatView) -> Tile | None:
    """The tile the round must open with, as the legal moves show it on an empty line."""
    if view.left is not None:
        return None
    tiles = {tile for tile, _ in view.legal}
    return next(iter(tiles)) if len(tiles) == 1 and len(view.hand) > 1 else None


def evaluate(view: SeatView, rng: random.Random, samples: int | None = None) -> list[tuple[Move, float]]:
    """Each legal move with its mean objective over ``samples`` (default :data:`DEFAULT_SAMPLES`) sampled
    tables (higher is better)."""
    samples = samples or DEFAULT_SAMPLES
    legal = list(view.legal)
    if not view.options:
        raise ValueError("the expert needs the game's options in the seat view")
    options = Options.from_dict(view.options)
    sums = [0.0] * len(legal)
    must_lead = _must_lead(view)
    deals = DealSampler(view)
    for _ in range(samples):
        hands, bazaar = deals.draw(rng)
        base = _machine(view, options, hands, bazaar, must_lead)
        for index, (tile, end) in enumerate(legal):
            g = _clone(base)
            place_tile(g, g.table, view.seat, tile, end)  # type: ignore[arg-type]
            play_round_out(g, _policy)
            sums[index] += objective(g, view.seat)
    return [(move, total / samples) for move, total in zip(legal, sums, strict=True)]


def choose_expert(view: SeatView, rng: random.Random, samples: int | None = None) -> Move:
    """The legal move with the best mean objective (the first of equals); a forced move at once."""
    if len(view.legal) == 1:
        return view.legal[0]
    # the generator for the samples: seeded from the caller's, so a seeded caller repeats its choice
    own = random.Random(rng.getrandbits(64))
    scored = evaluate(view, own, samples)
    best = max(value for _, value in scored)
    return next(move for move, value in scored if value == best)


__all__ = ["DEFAULT_SAMPLES", "ENGINE_VERSION", "choose_expert", "evaluate", "objective", "sample_hands"]
