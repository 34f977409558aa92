"""The round and game state machine (docs/rules.md §3–§10): each rule one function that changes the machine.

``start_round`` applies a deal (or its void), ``place_tile``, ``draw_tile`` and ``knock`` are the three
things that happen in a round, ``round_end`` says whether the round is over after a play or a draw,
``end_round`` scores it and ends the game when it is over, ``interrupt`` ends a game by a timeout or a
resignation. Every caller has checked the move first (:mod:`goat.engine.moves`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat

from . import deal as dealing
from . import scoring
from .errors import RulesError
from .machine import GameMachine, RoundMachine
from .rulesets import Options, is_paired, parties
from .scoring import PlayerScore
from .state import Result, RoundRecord
from .status import FINISHED, INTERRUPTED, REASON_LIMIT, REASON_ROUNDS, RUNNING
from .tiles import ALL_TILES, BIT, HALVES, SHOWS, SHOWS_NON_DOUBLE, Tile, ends_after, tile_set

END_OUT, END_FISH = scoring.END_OUT, scoring.END_FISH
#: builds a round record from its fields without the named tuple's ``__new__`` (a Python frame)
_new_tuple = tuple.__new__

# --- leaders (docs/rules.md §4) --------------------------------------------------------------------

_NON_DOUBLES = [t for t in ALL_TILES if t[0] != t[1]]
DOUBLES_FROM_ONE_ORDER: tuple[Tile, ...] = (
    tuple(ALL_TILES[HALVES.index((v, v))] for v in range(1, 7))
    + (ALL_TILES[0],)
    + tuple(sorted(_NON_DOUBLES, key=lambda t: (t[1], t[0]), reverse=True))  # D-5, first edition
)
#: the same doubles; then the non-doubles by pip sum descending, ties by the higher half (D-5, second edition)
DOUBLES_FROM_ONE_BY_SUM_ORDER: tuple[Tile, ...] = DOUBLES_FROM_ONE_ORDER[:7] + tuple(
    sorted(_NON_DOUBLES, key=lambda t: (t[0] + t[1], t[1]), reverse=True)
)
SMALLEST_DOUBLE_ORDER: tuple[Tile, ...] = tuple(ALL_TILES[HALVES.index((v, v))] for v in range(7)) + tuple(
    sorted(_NON_DOUBLES, key=lambda t: (t[0] + t[1], t[0]))  # D-6
)
#: each opener rule's order of tiles; a new rule is a new entry
OPENER_ORDERS = {"doubles_from_one": DOUBLES_FROM_ONE_ORDER, "doubles_from_one_by_sum": DOUBLES_FROM_ONE_BY_SUM_ORDER,
                 "smallest_double": SMALLEST_DOUBLE_ORDER}


def opening_tile(opener: str, hands: Sequence[Sequence[Tile]]) -> tuple[int, Tile]:
    """The seat that leads and the tile it must lead with, by the opener rule."""
    return _opener(opener, [tile_set(hand) for hand in hands])


def _opener(opener: str, held: Sequence[int]) -> tuple[int, Tile]:
    """:func:`opening_tile` of the hands given as tile sets."""
    dealt = sum(held)
    for tile in OPENER_ORDERS[opener]:
        bit = BIT[tile]
        if dealt & bit:
            for seat in range(len(held) - 1, -1, -1):  # from the last seat: the last holder, were a tile in two
                if held[seat] & bit:
                    return seat, tile
    raise RulesError("no_tiles", "nobody holds a tile")  # unreachable: hands are never all empty


# --- dealing (docs/rules.md §3) --------------------------------------------------------------------


def next_deal(g: GameMachine) -> tuple[int, int, dealing.Deal]:
    """``(round, attempt, deal)`` of the deal the game waits for (needs the seed). The key's stream is
    prepared once per game and kept on the machine (every deal of a game has the same key)."""
    stream = g.stream
    if stream is None:
        if g.server_seed is None:
            raise RulesError("seed_unknown", "the server seed is needed to deal.")
        stream = g.stream = dealing.prepare_stream(dealing.deal_key(g.server_seed, g.client_seeds))  # type: ignore[arg-type]
    round_no, attempt, options = g.round_no + 1, g.next_attempt, g.options
    return round_no, attempt, dealing.deal_round(stream, round_no, attempt, g.seats, options.hand_size,
                                                 options.redeal)


def start_round(g: GameMachine, hands: list[list[Tile]], bazaar: list[Tile], void: bool, held: list[int]) -> None:
    """Apply a deal (``held``: each hand as a tile set): a void deal is redealt (the next attempt);
    otherwise the round begins, led by the opener rule (round 1, or every round under
    ``later_leader == "opener"``) or by the last winner."""
    g.version += 1
    if void:
        g.next_attempt += 1
        return
    g.round_no += 1
    g.next_attempt = 0
    options = g.options
    must_lead: Tile | None
    if g.round_no == 1 or options.later_leader == "opener" or g.leader is None:
        leader, must_lead = _opener(options.opener, held)
    else:
        leader, must_lead = g.leader, None
    t = g.table = RoundMachine()
    t.number, t.hands, t.bazaar, t.line = g.round_no, hands, bazaar, []
    t.left = t.right = t.last_player = t.ended = None
    t.turn, t.must_lead = leader, must_lead
    t.held, t.on_line = held, 0


# --- a round ----------------------------------------------------------------------------------


def place_tile(g: GameMachine, t: RoundMachine, seat: int, tile: Tile, end: str) -> None:
    """Put a checked play of ``seat`` on the line: ``tile`` goes on ``end`` (turned so that its matching
    half touches the end); then the turn passes, or the round ends."""
    bit = BIT[tile]
    t.held[seat] ^= bit
    hand = t.hands[seat]
    hand.remove(tile)
    t.on_line |= bit
    left, right = t.left, t.right
    t.left, t.right = ends_after(left, right, tile, end)
    if left is None:  # the round's first tile: it was the tile to lead with, if there was one
        t.line.append(HALVES[tile])
        t.must_lead = None
    elif end == "left":
        t.line.insert(0, (t.left, left))
    else:
        t.line.append((right, t.right))  # type: ignore[arg-type]  # a tile is on the line: both ends are set
    t.turn = (seat + 1) % g.seats
    t.last_player = seat
    g.version += 1
    ended = round_end(g.options, t, hand)
    if ended is not None:
        end_round(g, ended, seat)


def draw_tile(g: GameMachine, t: RoundMachine, seat: int) -> None:
    """The seat to move, holding nothing that fits, takes the front tile of the bazaar; the round ends
    if that leaves nobody able to play and no draw allowed."""
    tile = t.bazaar.pop(0)
    t.hands[seat].append(tile)
    t.held[seat] |= BIT[tile]
    g.version += 1
    last: int = t.last_player  # type: ignore[assignment]
    ended = round_end(g.options, t, t.hands[last])
    if ended is not None:
        end_round(g, ended, last)


def knock(g: GameMachine, t: RoundMachine, seat: int) -> None:
    """The seat to move can neither play nor draw: the turn passes."""
    t.turn = (seat + 1) % g.seats
    g.version += 1


def round_end(options: Options, t: RoundMachine, last_hand: list[Tile]) -> str | None:
    """How the round ends now (docs/rules.md §6), after a play or a draw (``last_hand``: the hand of the
    seat that played last): ``"out"`` when that hand is empty, ``"fish"`` when it is positional or
    blocked, ``None`` while it goes on."""
    if not last_hand:
        return END_OUT
    left, right = t.left, t.right
    if left == right and options.fish == "positional_or_blocked":
        six = SHOWS_NON_DOUBLE[left]  # type: ignore[index]
        if t.on_line & six == six:
            return END_FISH
    if len(t.bazaar) <= options.bazaar_reserve:
        in_hands = 0
        for hand in t.held:
            in_hands |= hand
        if not in_hands & (SHOWS[left] | SHOWS[right]):  # type: ignore[index]
            return END_FISH
    return None


# --- the end of a round and of a game ---------------------------------------------------------


def end_round(g: GameMachine, end: str, seat: int) -> None:
    """Score a finished round (docs/rules.md §7–§8), write it on the scoresheet, end the game if it is over.

    ``seat`` is the player who went out, or the fisher."""
    options = g.options
    t: RoundMachine = g.table  # type: ignore[assignment]
    hand_values = tuple(map(scoring.hand_value, t.hands, repeat(options.lone_double_zero)))
    if options.scoring == "goat" and is_paired(g.ruleset):
        outcome = scoring.score_party_round(
            players=g.scores, hand_values=hand_values, end=end, seat=seat,
            fish_scoring=options.fish_scoring, open_threshold=options.open_threshold,  # type: ignore[arg-type]
            fish_pot=g.fish_pot, party_of=parties(g.ruleset, g.seats),
        )
        winners = None
    elif options.scoring == "goat":
        outcome = scoring.score_goat_round(
            players=g.scores, hand_values=hand_values, end=end, seat=seat,
            fish_scoring=options.fish_scoring, open_threshold=options.open_threshold,  # type: ignore[arg-type]
            fish_pot=g.fish_pot,
        )
        winners = None
    else:
        outcome = scoring.score_fixed_round(players=g.scores, hand_values=hand_values)
        winners = scoring.round_winners(outcome.round_points)  # §8: named on the round record
    g.rounds.append(_new_tuple(RoundRecord, (
        t.number, end, seat, tuple(map(tuple, t.hands)), hand_values, outcome.round_points,
        outcome.fish_pot, outcome.draw, outcome.players, winners,
    )))
    t.turn = None
    t.ended = end
    result = game_result(options, outcome.players, t.number)
    g.scores = outcome.players
    g.fish_pot = outcome.fish_pot if result is None else 0  # D-9: a pot still carried at the end is void
    g.leader = seat
    g.result = result
    g.status = FINISHED if result is not None else RUNNING


def game_result(options: Options, players: Sequence[PlayerScore], rounds_played: int) -> Result | None:
    """The result of a game whose last written round leaves ``players``, or ``None`` while it goes on:
    a goat game ends when a player reaches the limit (§7.5), a fixed-rounds game after its rounds (§8)."""
    if options.scoring == "goat":
        limit: int = options.limit  # type: ignore[assignment]
        if not scoring.goat_game_over(players, limit, options.remembered_counts is not False):
            return None
        reason = REASON_LIMIT
        points = scoring.points(players, options.remembered_counts)  # D-8
        goats, winners = scoring.result_by_limit(points, limit)
    else:
        if rounds_played < options.rounds:  # type: ignore[operator]
            return None
        reason = REASON_ROUNDS
        points = scoring.points(players, options.remembered_counts)
        goats, winners = scoring.result_by_rounds(points)
    return Result(
        reason=reason,
        goats=tuple(goats),
        winners=tuple(winners),
        rating_points=tuple(scoring.rating_points_finished(points, goats)),
        chips=tuple(scoring.chips_finished(options.ante, len(points), winners)),
    )


def interrupt(g: GameMachine, seat: int, reason: str) -> None:
    """End the game by a timeout or a resignation of ``seat`` (§9, D-12, D-13): the points are those
    written after the last completed round."""
    points = scoring.points(g.scores, g.options.remembered_counts)  # D-8
    party_of = parties(g.ruleset, g.seats) if is_paired(g.ruleset) else None  # D-31: the pair answers
    goats, winners = scoring.result_interrupted(points, seat, party_of)
    g.result = Result(
        reason=reason,
        goats=tuple(goats),
        winners=tuple(winners),
        rating_points=tuple(scoring.rating_points_interrupted(points, seat, party_of)),
        chips=tuple(scoring.chips_interrupted(g.options.ante, g.seats, seat, party_of)),
    )
    if g.table is not None:
        g.table.turn = None
    g.status = INTERRUPTED
    g.fish_pot = 0
    g.version += 1
