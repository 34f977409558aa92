"""Session: the in-memory game handle follows exactly the same rules as decide()."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goat.engine.errors import IllegalMove
from goat.engine.rules import PLAY, CreateGame, PlayTile, Session, TakeSeat, decide, legal_moves, pending
from goat.engine.tiles import ALL_TILES, parse_tile, tile_set

SEED = "ab" * 32


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), ruleset=st.sampled_from(["goat-classic", "goat-gamesburg", "domino-3rounds"]),
       seats=st.integers(2, 4))
def test_session_and_decide_produce_the_same_events_and_states(seed, ruleset, seats):
    rng = random.Random(seed)
    session = Session()
    commands = [CreateGame(ruleset=ruleset, seats=seats, server_seed_hex=SEED)]
    commands += [TakeSeat(player=f"p{s}") for s in range(seats)]
    state = None
    for command in commands:
        state, events = decide(state, command)
        assert session.decide(command) == events
    for _ in range(60):
        kind, seat = pending(state)
        if kind != PLAY:
            break
        assert session.legal_moves() == legal_moves(state)
        tile, end = rng.choice(legal_moves(state))
        state, events = decide(state, PlayTile(seat=seat, tile=tile, end=end))
        assert session.decide(PlayTile(seat=seat, tile=tile, end=end)) == events
        assert session.state == state


def test_a_refused_command_leaves_the_session_unchanged():
    session = Session()
    session.decide(CreateGame(ruleset="goat-classic", seats=2, server_seed_hex=SEED))
    session.decide(TakeSeat(player="a"))
    session.decide(TakeSeat(player="b"))
    before = session.state
    kind, seat = session.pending()
    legal = {t for t, _ in session.legal_moves()}
    illegal = next(t for t in ALL_TILES if t not in legal)
    with pytest.raises(IllegalMove):
        session.decide(PlayTile(seat=seat, tile=illegal, end="left"))
    with pytest.raises(IllegalMove):
        session.decide(PlayTile(seat=1 - seat, tile=next(iter(legal)), end="left"))
    assert session.state == before


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), ruleset=st.sampled_from(["goat-classic", "goat-gamesburg", "domino-3rounds"]),
       seats=st.integers(2, 4))
def test_the_machines_tile_sets_follow_the_hands_and_the_line(seed, ruleset, seats):
    """The rules read ``held`` and ``on_line`` instead of scanning hands and line: they must always be
    the sets of those tiles (kept on plays and draws, set on deals and thaw)."""

    rng = random.Random(seed)
    session = Session()
    session.decide(CreateGame(ruleset=ruleset, seats=seats, server_seed_hex=SEED))
    for s in range(seats):
        session.decide(TakeSeat(player=f"p{s}", client_seed=str(seed)))
    while session.pending()[0] == PLAY:
        tile, end = rng.choice(session.legal_moves())
        session.decide(PlayTile(seat=session.pending()[1], tile=tile, end=end))
        table = session._g.table
        if table.ended is None:
            assert table.held == [tile_set(h) for h in table.hands]
            assert table.on_line == tile_set(parse_tile(f"{a}-{b}") for a, b in table.line)
        assert Session(session.state)._g.table.held == table.held
