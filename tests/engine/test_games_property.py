"""Whole random games of every ruleset, 2-4 seats, both fish scorings, checked at every step.

A hypothesis example is a game: its ruleset, seats, options and an integer that seeds the random choice
among the legal moves (and, sometimes, a timeout or resignation).  At every step: the 28 tiles are
accounted for, refused commands are refused with ``IllegalMove`` and change nothing, and the state
``decide`` returned equals the fold of the events so far (checked and trusted paths alike).
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goat.engine.errors import IllegalMove, RulesError
from goat.engine.replay import replay, verify_log
from goat.engine.rules import PLAY, PlayTile, Resign, TimeOut, apply, decide, evolve, legal_moves, pending
from goat.engine.simulate import simulate_game
from goat.engine.status import RUNNING
from goat.engine.tiles import ALL_TILES, parse_tile, tile_set, tile_str
from helpers import new_game, seed_hex

GAMES = st.one_of(
    st.tuples(st.just("goat-classic"), st.sampled_from([2, 3, 4]), st.sampled_from(["fish_for_all", "fish_for_one"])),
    st.tuples(st.just("goat-gamesburg"), st.sampled_from([2, 3, 4]),
              st.sampled_from(["fish_for_all", "fish_for_one"])),
    st.tuples(st.just("domino-3rounds"), st.sampled_from([2, 3, 4]), st.none()),
    st.tuples(st.just("goat-pairs"), st.just(4), st.sampled_from(["fish_for_all", "fish_for_one"])),
)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _tiles_accounted_for(state) -> None:
    t = state.table
    if state.status != RUNNING or t is None or t.ended is not None:
        return
    laid = [parse_tile(f"{a}-{b}") for a, b in t.line]
    everything = [x for h in t.hands for x in h] + list(t.bazaar) + laid
    assert sorted(everything) == list(ALL_TILES), "the 28 tiles are not all accounted for"
    assert t.held == tuple(tile_set(h) for h in t.hands) and t.on_line == tile_set(laid)


def _illegal_commands_refused(state, rng: random.Random) -> None:
    """Random plays that are not legal raise IllegalMove and leave the state as it was."""
    kind, seat = pending(state)
    legal = set(legal_moves(state))
    t = state.table
    before = replace(state)
    for _ in range(4):
        tile = rng.choice(ALL_TILES)
        end = rng.choice(["left", "right", None])
        who = seat if rng.random() < 0.8 else rng.randrange(state.seats)
        ends_for_tile = {e for (x, e) in legal if x == tile}
        if who == seat and (
            (tile, end) in legal
            or (end is None and len(ends_for_tile) == 1)
            # The first tile of a round has no end to choose: any end given is read as "left".
            or (not t.line and ends_for_tile)
        ):
            continue
        try:
            decide(state, PlayTile(seat=who, tile=tile_str(tile), end=end))
        except IllegalMove:
            pass
        else:
            raise AssertionError(f"illegal play accepted: seat {who} {tile} {end} (legal {sorted(legal)})")
        assert state == before


def _play_game(ruleset, seats, fish_scoring, choice_seed, interrupt):
    options = {"fish_scoring": fish_scoring} if fish_scoring else None
    server_seed = seed_hex(choice_seed)
    rng = random.Random(choice_seed)
    state, log = new_game(ruleset, seats, options, seed=server_seed,
                          client_seeds=[rng.choice(["", "x", "карл"]) for _ in range(seats)])
    checkpoints = {len(log): state}
    stop_at = rng.randrange(1, 120) if interrupt else None
    moves = 0
    while pending(state)[0] == PLAY:
        _tiles_accounted_for(state)
        _illegal_commands_refused(state, rng)
        moves += 1
        seat = pending(state)[1]
        if stop_at is not None and moves >= stop_at:
            command = TimeOut(seat=seat) if rng.random() < 0.5 else Resign(seat=rng.randrange(seats))
        else:
            tile, end = rng.choice(legal_moves(state))
            command = PlayTile(seat=seat, tile=tile_str(tile), end=end)
        state, events = decide(state, command)
        log.extend(events)
        checkpoints[len(log)] = state
        assert state.version == len(log)
    return state, log, checkpoints, server_seed


def _check_fold(log, checkpoints, server_seed) -> None:
    """The checked fold (apply) and the trusted fold (evolve) agree with ``decide`` at every version."""
    checked = trusted = None
    for version, event in enumerate(log, start=1):
        checked = apply(checked, event)
        trusted = evolve(trusted, event)
        if version == 1:
            checked = replace(checked, server_seed=server_seed)
            trusted = replace(trusted, server_seed=server_seed)
        assert checked == trusted
        assert checked.version == version
        if version in checkpoints:
            assert checked == checkpoints[version], f"replay differs at version {version}"
        _tiles_accounted_for(checked)


def _check_scores_between_rounds(state) -> None:
    previous = None
    for record in state.rounds:
        if previous is not None and state.options.scoring == "goat":
            for b, a in zip(previous, record.players, strict=True):
                if a.score + a.remembered < b.score + b.remembered:
                    # Only a remembered reset lowers points: going out, or losing a fish_for_one.
                    assert not b.open and not a.open and a.remembered == 0 and a.score == b.score
                if b.open:
                    assert a.open and a.score >= b.score
        previous = record.players


def _check_ended(state, log) -> None:
    assert state.ended and pending(state) == ("done", None)
    assert log[-1]["type"] == "seed_revealed"
    assert state.version == len(log)
    result = state.result
    assert sum(result.chips) == 0
    for seat in range(state.seats):
        if seat in result.goats:
            assert result.rating_points[seat] == 0
        else:
            assert result.rating_points[seat] >= 1
    assert not set(result.goats) & set(result.winners)
    assert state.fish_pot == 0  # D-9: a pot still carried at the end is void
    if result.reason == "rounds":
        assert len(state.rounds) == state.options.rounds
    elif result.reason == "limit":
        assert set(result.goats) == {s for s, p in enumerate(state.points) if p >= state.options.limit}
    if state.ruleset == "goat-pairs":
        _check_pairs(state)


def _check_pairs(state) -> None:
    """Partners carry one account; each round charges a pair the pips of its two hands (the pair that
    went out nothing; after a fish by the ruleset's fish scoring); the result names whole pairs."""
    pot = 0
    for record in state.rounds:
        assert record.players[0] == record.players[2] and record.players[1] == record.players[3]
        pair_points = [record.round_points[0], record.round_points[1]]
        assert record.round_points[2:] == tuple(pair_points)
        charged = [record.hands[0] + record.hands[2], record.hands[1] + record.hands[3]]
        if record.draw:
            assert pair_points == [0, 0] and record.fish_pot == pot + sum(charged)
        else:
            if record.end == "out":
                expected = [0, 0]
                expected[1 - record.seat % 2] = charged[1 - record.seat % 2]
            elif state.options.fish_scoring == "fish_for_all":
                expected = charged
            else:
                expected = [sum(charged), 0] if charged[0] > charged[1] else [0, sum(charged)]
            if pot and record.fish_pot == 0:
                expected[expected.index(max(expected))] += pot
            assert pair_points == expected
        pot = record.fish_pot
    result = state.result
    assert sorted(result.winners) in ([], [0, 2], [1, 3])
    # one pair is the goats, or both when they reach the limit in the same round (D-15)
    assert sorted(result.goats) in ([0, 2], [1, 3], [0, 1, 2, 3])
    assert result.rating_points[0] == result.rating_points[2] and result.rating_points[1] == result.rating_points[3]


@SETTINGS
@given(game=GAMES, choice_seed=st.integers(0, 2**32 - 1), interrupt=st.booleans())
def test_whole_random_games_keep_every_invariant(game, choice_seed, interrupt):
    ruleset, seats, fish_scoring = game
    state, log, checkpoints, server_seed = _play_game(ruleset, seats, fish_scoring, choice_seed, interrupt)
    _check_ended(state, log)
    _check_scores_between_rounds(state)
    numbered = [{**e, "seq": i} for i, e in enumerate(log, start=1)]
    _check_fold(numbered, checkpoints, server_seed)
    result = replay(numbered, server_seed=server_seed, require_complete=True)
    assert result.ok and result.state == state
    report = verify_log(numbered)
    assert report["valid"] and report["result"] == state.result_dict()
    assert len(report["rounds"]) == len(state.rounds)


@settings(max_examples=100, deadline=None)
@given(game=GAMES, seed=st.integers(0, 2**32 - 1))
def test_simulated_games_verify_with_the_same_result(game, seed):
    ruleset, seats, fish_scoring = game
    options = {"fish_scoring": fish_scoring} if fish_scoring else None
    log = simulate_game(random.Random(seed), ruleset=ruleset, seats=seats, options=options, interrupt_chance=0.3)
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    report = verify_log(log)
    assert report["valid"], report
    state = replay(log).state
    assert report["result"] == state.result_dict()
    assert report["rounds"] == [r.to_dict(state.options.remembered_counts) for r in state.rounds]
    assert sum(state.result.chips) == 0
    assert state.version == len(log)
    # A second simulation from the same seed is the same game.
    assert simulate_game(random.Random(seed), ruleset=ruleset, seats=seats, options=options,
                         interrupt_chance=0.3) == log


@settings(max_examples=60, deadline=None)
@given(game=GAMES, seed=st.integers(0, 2**32 - 1), data=st.data())
def test_a_refused_event_is_reported_at_its_seq(game, seed, data):
    """A single event removed from a finished log makes the verifier stop at or before that seq."""
    ruleset, seats, fish_scoring = game
    options = {"fish_scoring": fish_scoring} if fish_scoring else None
    log = simulate_game(random.Random(seed), ruleset=ruleset, seats=seats, options=options, interrupt_chance=0.2)
    cut = data.draw(st.integers(2, len(log) - 1), label="removed seq")
    tampered = [{**e, "seq": i} for i, e in enumerate(log[:cut - 1] + log[cut:], start=1)]
    report = verify_log(tampered)
    if report["valid"]:
        # Only an interruption may follow any position: removing the play just before a resignation
        # (or a timeout) can leave a shorter game that is legal.
        assert log[cut]["type"] in ("resigned", "timed_out") and log[cut - 1]["type"] == "tile_played"
    else:
        assert report["seq"] <= max(cut, len(tampered) + 1)


def test_every_ruleset_and_seat_count_is_exercised():
    """A deterministic sweep so that no combination depends on hypothesis' sampling."""
    for ruleset, fish in (("goat-classic", "fish_for_all"), ("goat-classic", "fish_for_one"),
                          ("goat-gamesburg", "fish_for_one"), ("domino-3rounds", None),
                          ("goat-pairs", "fish_for_all"), ("goat-pairs", "fish_for_one")):
        for seats in ((4,) if ruleset == "goat-pairs" else (2, 3, 4)):
            for interrupt in (False, True):
                state, log, checkpoints, server_seed = _play_game(ruleset, seats, fish, seats * 7 + interrupt,
                                                                  interrupt)
                _check_ended(state, log)


def test_refused_commands_raise_rules_errors_only():
    state, _ = new_game("goat-classic", 2)
    for bad in ("", "0-7", "a-b", None, 5):
        try:
            decide(state, PlayTile(seat=state.table.turn, tile=bad))
        except RulesError as exc:
            assert exc.code == "invalid_tile"
        else:  # pragma: no cover
            raise AssertionError(f"{bad!r} accepted")
