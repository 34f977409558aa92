"""Computers as partners in goat-pairs (docs/computer.md "Partners"): ``strong`` and ``expert`` know the
seat opposite is their partner; they do not leave it ends it showed it lacks, the strong player's
open-ends term weighs the opponents' share of the unseen tiles less the partner's, and the expert's
playouts score rounds by the pair (the re-deal test of tests/games/test_expert_seat_view.py holds
for pairs: the partner's hand is hidden from them too)."""

from __future__ import annotations

import random

import pytest

from goat.engine import computer, expert
from goat.engine.rules import PlayTile, decide, legal_moves
from goat.engine.rulesets import Options, resolve_options
from goat.engine.seat import SeatView
from goat.engine.tiles import BIT, PARSE, tile_str
from helpers import new_game

A = (PARSE["2-5"], "left")  # leaves the ends 5 and 3
B = (PARSE["3-4"], "right")  # leaves the ends 2 and 4


def _view(ruleset: str, *, lacks=(0, 0, 1 << 5 | 1 << 3, 0), counts=(2, 5, 5, 5)) -> SeatView:
    """Seat 0 to move on the line 2-3 (ends 2 and 3) holding 2-5 and 3-4 (7 pips each); seat 2, its
    partner in goat-pairs, knocked on 5 and 3."""
    return SeatView(
        seat=0, seats=4, hand=(PARSE["2-5"], PARSE["3-4"]), legal=(A, B), left=2, right=3,
        on_line=BIT[PARSE["2-3"]], counts=counts, points=(0, 0, 0, 0), bazaar=0, bazaar_reserve=0,
        lacks=lacks, options=resolve_options(ruleset, 4).to_dict(), scores=((False, 0, 0),) * 4,
        fish_pot=0, round=1, last_player=3, ruleset=ruleset,
    )


def test_the_view_knows_the_partner():
    assert _view("goat-pairs").partner == 2
    assert _view("goat-classic").partner is None


def test_strong_does_not_block_its_partner():
    """The two moves score the same for a player on their own; with seat 2 a partner, leaving it the
    ends it knocked on costs the block's weight, and strong plays the other move."""
    solo = {move: score for score, move in computer.move_scores(_view("goat-classic"))}
    assert solo[A] == solo[B]
    paired = {move: score for score, move in computer.move_scores(_view("goat-pairs"))}
    assert paired[A] == pytest.approx(paired[B] - computer.W_BLOCK)
    rng = random.Random(1)
    assert {computer.choose_strong(_view("goat-pairs"), rng) for _ in range(20)} == {B}


def test_strong_feeds_a_partner_who_holds_more_of_the_unseen_tiles():
    """The open-ends weight: ``W_OPEN_PAIRED`` times the opponents' share less the partner's; with the
    partner holding most of the unseen tiles, ends the others can play on are good for the pair; with
    the opponents holding most, they cost more than they cost a player on their own."""
    assert computer._open_weight(_view("goat-classic")) == computer.W_OPEN
    even = _view("goat-pairs", counts=(2, 3, 6, 3))
    assert computer._open_weight(even) == 0
    feeding = _view("goat-pairs", counts=(2, 1, 6, 1))
    assert computer._open_weight(feeding) < 0
    guarding = _view("goat-pairs", counts=(2, 6, 1, 6))
    assert computer.W_OPEN < computer._open_weight(guarding) < computer.W_OPEN_PAIRED


def test_the_playout_policy_blocks_an_opponent_and_never_the_partner():
    """PublicPolicy's blocking term asks "partner, not opponent": in a paired game the ends a move
    leaves are held against it when the partner showed it lacks them."""
    view = _view("goat-pairs")
    g = expert._machine(view, Options.from_dict(view.options), [list(view.hand), [], [], []], [], None)
    policy = expert.PublicPolicy(view.lacks, view.seat)
    assert policy.choose(g, 0, [A, B]) == B
    assert policy.choose(g, 0, [B, A]) == B
    solo = _view("goat-classic")
    g = expert._machine(solo, Options.from_dict(solo.options), [list(solo.hand), [], [], []], [], None)
    assert policy.choose(g, 0, [A, B]) == A  # on its own, the first of equals


def _seat_view_of(state) -> SeatView:
    """The seat to move's view of an engine state (what computer.seat_view reads from the API)."""
    t = state.table
    seat = t.turn
    return SeatView(
        seat=seat, seats=4, hand=tuple(t.hands[seat]), legal=tuple(legal_moves(state)), left=t.left,
        right=t.right, on_line=t.on_line, counts=tuple(len(h) for h in t.hands), points=tuple(state.points),
        bazaar=0, bazaar_reserve=0, lacks=(0, 0, 0, 0), options=state.options.to_dict(),
        scores=tuple((p.open, p.score, p.remembered) for p in state.scores), fish_pot=state.fish_pot,
        round=state.round_no, last_player=t.last_player, ruleset=state.ruleset,
    )


def test_the_expert_plays_pairs_from_its_seat_view_reproducibly():
    state, _ = new_game("goat-pairs", 4, seed=9)
    rng = random.Random(9)
    for _ in range(3):  # a few plays in, so that there is a line and a choice
        tile, end = rng.choice(legal_moves(state))
        state, _ = decide(state, PlayTile(seat=state.table.turn, tile=tile_str(tile), end=end))
    view = _seat_view_of(state)
    first = expert.choose_expert(view, random.Random(5), samples=30)
    assert first in view.legal and expert.choose_expert(view, random.Random(5), samples=30) == first
    values = dict(expert.evaluate(view, random.Random(5), samples=30))
    assert all(-100 <= v <= 100 for v in values.values())
