"""Computer players: how a computer seat chooses its move (docs/computer.md).

Pure and small: a choice is made from what the seat may see, the same redacted game view and event
log a human client gets from the API (its hand, the line, every seat's tile count and points, the
bazaar's size, the public events), read by :func:`seat_view`. The legal moves are the view's
``legal_moves``, which the engine computed (``goat.engine.legal_moves``); nothing here decides
whether a move is legal. Three players:

* ``random``: any legal move, uniformly.
* ``greedy`` (the bench's baseline, not offered to games): the legal tile with the most pips, ties at
  random.
* ``strong``: scores every legal move by the pips it sheds, what a double costs to keep, how many of
  its own tiles fit the ends the move leaves, and what the others can still play on those ends (the
  tiles not yet seen, and the values a seat showed it lacks when it drew or knocked), then plays the
  best. In a game of pairs it knows its partner: it does not leave ends its partner showed it lacks,
  and what fits the ends it leaves counts against it only for the opponents' share of the unseen
  tiles (it feeds a partner who holds more of them).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from .expert import choose_expert
from .seat import Move, SeatView, tile_set
from .tiles import BIT, DOUBLES, PARSE, PARSE_LAID, PIPS, SHOWS, TEXT, ends_after

#: the levels a game may seat computers at
LEVELS = ("random", "strong", "expert")
EXPERT = "expert"
#: the level of a game that names none
DEFAULT_LEVEL = "strong"
#: the bench's plain baseline
GREEDY = "greedy"
PLAYERS = (*LEVELS, GREEDY)

LEFT, RIGHT = "left", "right"


def seat_view(game_view: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> SeatView:
    """The seat view of a game view (``GET /api/games/{id}/`` for the seat) and the seat's redacted
    events (``GET /api/games/{id}/events/``; only the current round's are read, so passing the events
    since its ``round_dealt`` gives the same view)."""
    seat = game_view["your_seat"]
    if seat is None:
        raise ValueError("a computer decides for a seat: the view has no your_seat")
    line = [PARSE_LAID[text] for text in game_view["line"]["tiles"]]
    seats = [(s["tiles"], s["points"]) for s in game_view["seats"]]
    return SeatView(
        seat=seat,
        seats=len(seats),
        hand=tuple(PARSE[text] for text in game_view["hand"]),
        legal=tuple((PARSE[m["tile"]], m["end"]) for m in game_view["legal_moves"]),
        left=game_view["line"]["left"],
        right=game_view["line"]["right"],
        on_line=tile_set([PARSE[f"{a}-{b}"] for a, b in line]),
        counts=tuple(count for count, _ in seats),
        points=tuple(points for _, points in seats),
        bazaar=game_view["bazaar"],
        bazaar_reserve=game_view["options"]["bazaar_reserve"],
        lacks=_lacks(line, events, len(seats)),
        options=game_view["options"],
        scores=tuple((bool(s.get("open", False)), s.get("score", 0), s.get("remembered", 0))
                     for s in game_view["seats"]),
        fish_pot=game_view.get("fish_pot", 0),
        round=game_view.get("round", 0),
        last_player=_last_player(events),
        ruleset=game_view.get("ruleset", ""),
    )


def _round_start(events: Sequence[Mapping[str, Any]]) -> int:
    """The index of the first event of the current round (after its ``round_dealt``)."""
    for index in range(len(events) - 1, -1, -1):
        if events[index]["type"] == "round_dealt":
            return index + 1
    return 0


def _last_player(events: Sequence[Mapping[str, Any]]) -> int | None:
    """The seat of the current round's last ``tile_played`` (``None`` before the round's first play)."""
    for index in range(len(events) - 1, _round_start(events) - 1, -1):
        if events[index]["type"] == "tile_played":
            return events[index]["seat"]  # type: ignore[no-any-return]
    return None


def _lacks(line: Sequence[tuple[int, int]], events: Sequence[Mapping[str, Any]], seats: int) -> tuple[int, ...]:
    """What each seat showed it lacks in this round: the ends of the line when it drew or knocked.

    The line as laid (left to right) and the round's plays say where the ends were at each event: the
    first tile lies at the place of the left plays after it, and each later play widens the laid part
    by one place on its end."""
    round_events = events[_round_start(events):]
    plays = [e for e in round_events if e["type"] == "tile_played"]
    lacks = [0] * seats
    if len(plays) != len(line):  # a log that does not belong to this line: nothing is inferred
        return tuple(lacks)
    low = high = sum(1 for e in plays[1:] if e["data"]["end"] == LEFT)
    placed = False
    for event in round_events:
        kind = event["type"]
        if kind == "tile_played":
            if placed:
                if event["data"]["end"] == LEFT:
                    low -= 1
                else:
                    high += 1
            placed = True
        elif kind in ("tile_drawn", "knocked") and placed:
            ends = 1 << line[low][0] | 1 << line[high][1]
            seat = event["seat"]
            # a draw brings tiles nobody saw: only the ends it was drawn for are known to be missing
            lacks[seat] = ends if kind == "tile_drawn" else lacks[seat] | ends
    return tuple(lacks)


def choose(view: SeatView, level: str, rng: random.Random) -> tuple[str, str]:
    """The move ``(tile, end)`` (as the API takes them) that a computer of ``level`` plays."""
    if not view.legal:
        raise ValueError("no legal move: it is not this seat's choice")
    if level == "random":
        tile, end = rng.choice(view.legal)
    elif level == GREEDY:
        tile, end = choose_greedy(view.legal, rng)
    elif level == "strong":
        tile, end = choose_strong(view, rng)
    elif level == EXPERT:
        tile, end = choose_expert(view, rng)
    else:
        raise ValueError(f"unknown computer level {level!r}")
    return TEXT[tile], end


def choose_greedy(legal: Sequence[Move], rng: random.Random) -> Move:
    """The legal tile with the most pips, ties at random."""
    most = max(PIPS[tile] for tile, _ in legal)
    return rng.choice([move for move in legal if PIPS[move[0]] == most])


# --- strong ---------------------------------------------------------------------------------------

#: weights of the strong player's score of a move (docs/computer.md explains each)
W_PIPS = 1.0
W_DOUBLE = 4.0
W_MINE = 2.0
W_OPEN = 0.6
W_BLOCK = 8.0
#: in a game of pairs, what an unseen tile that fits the ends a move leaves costs before the partner's
#: share is taken off (``_open_weight``): six times ``W_OPEN``, measured (docs/computer.md "Partners");
#: with ``W_OPEN`` itself the partner's share leaves a third of it at even counts, too little to block
W_OPEN_PAIRED = 6 * W_OPEN


def _open_weight(view: SeatView) -> float:
    """What an unseen tile that fits the ends a move leaves costs: ``W_OPEN`` when every other seat is
    an opponent; in a game of pairs ``W_OPEN_PAIRED`` times the opponents' share of the unseen tiles
    less the partner's (a tile the partner may play on those ends helps the pair)."""
    partner = view.partner
    if partner is None:
        return W_OPEN
    mate = view.counts[partner]
    theirs = sum(count for s, count in enumerate(view.counts) if s not in (view.seat, partner))
    return W_OPEN_PAIRED * (theirs - mate) / max(1, theirs + mate)


def fish_pips(view: SeatView, rest: int, partner: int) -> float:
    """In a game of pairs, what a fish now would leave the seat's pair holding less the opponents: its
    own tiles ``rest`` (a tile set) plus the partner's count of the unseen tiles' mean pips, less the
    opponents' counts of it (negative: the pair likely holds fewer pips and the fish charges the others)."""
    unseen = [tile for tile in range(len(PIPS)) if view.unseen & BIT[tile]]
    mean = sum(PIPS[tile] for tile in unseen) / max(1, len(unseen))
    ours = sum(PIPS[tile] for tile in range(len(PIPS)) if rest & BIT[tile]) + view.counts[partner] * mean
    theirs = sum(count for s, count in enumerate(view.counts) if s not in (view.seat, partner)) * mean
    return ours - theirs


def move_scores(view: SeatView) -> list[tuple[float, Move]]:
    """Each legal move with the strong player's score of it (higher is better)."""
    held, unseen = view.held, view.unseen
    nxt = (view.seat + 1) % view.seats
    partner = view.partner
    w_open = _open_weight(view)
    scored = []
    for tile, end in view.legal:
        left, right = ends_after(view.left, view.right, tile, end)
        fits = SHOWS[left] | SHOWS[right]
        rest = held & ~BIT[tile]
        mine = (rest & fits).bit_count()
        open_ = (unseen & fits).bit_count()
        ends = 1 << left | 1 << right
        if partner is not None and not open_ and not mine:
            # nobody can play on: a fish, good for the pair only if it likely holds fewer pips
            blocked = fish_pips(view, rest, partner) < 0
            fish_lost = not blocked
        else:
            blocked = nxt != partner and ((view.lacks[nxt] & ends) == ends or not open_)
            fish_lost = False
        # a partner, not an opponent: leaving it ends it showed it lacks blocks the pair
        partner_blocked = partner is not None and (view.lacks[partner] & ends) == ends
        score = (W_PIPS * PIPS[tile] + W_DOUBLE * bool(DOUBLES & BIT[tile]) + W_MINE * mine - w_open * open_
                 + W_BLOCK * blocked - W_BLOCK * partner_blocked - W_BLOCK * fish_lost)
        scored.append((score, (tile, end)))
    return scored


def choose_strong(view: SeatView, rng: random.Random) -> Move:
    """The move with the best score (ties at random)."""
    scored = move_scores(view)
    best = max(score for score, _ in scored)
    return rng.choice([move for score, move in scored if score == best])
