"""The expert decides from its seat's view alone (issue 38): at real decisions of seeded games, the
hidden tiles (the other hands and the bazaar) are dealt again with the same counts, so the seat sees
exactly the same game view and redacted events, and the expert makes the same choice. In goat-pairs the
partner's hand is among the hidden tiles redealt: the expert knows who its partner is, not what it holds."""

from __future__ import annotations

import random

import pytest
from django.utils import timezone

from computer_play import redealt
from goat.engine import computer
from goat.engine.rules import PLAY, CreateGame, PlayTile, Session, TakeSeat
from goat.engine.state import GameState
from goat.games import selectors
from goat.games.models import Game


def _choice(state: GameState, seat: int, round_events: list[dict], seed: int) -> tuple[str, str]:
    game = Game(pk=1, created_at=timezone.now())
    view = selectors.game_view(game=game, state=state, seat=seat)
    seen = [selectors.redact(e, seat) for e in round_events]
    return computer.choose(computer.seat_view(view, seen), "expert", random.Random(seed))


@pytest.mark.parametrize(("ruleset", "seats", "decisions"), [("domino-3rounds", 2, 6), ("goat-classic", 4, 12),
                                                                  ("goat-pairs", 4, 12)])
def test_a_redeal_of_the_hidden_tiles_leaves_the_expert_s_choice_unchanged(ruleset, seats, decisions):
    rng = random.Random(38)
    session = Session()
    session.decide(CreateGame(ruleset=ruleset, seats=seats, server_seed_hex="ab" * 32))
    round_events: list[dict] = []
    for s in range(seats):
        round_events.extend(e for e in session.decide(TakeSeat(player=f"p{s}")) if e["type"] == "round_dealt")
    checked = differed = 0
    while checked < decisions:
        kind, seat = session.pending()
        assert kind == PLAY and seat is not None, "the game ended before enough decisions were checked"
        legal = session.legal_moves()
        state = session.state
        assert state is not None
        if len({tile for tile, _ in legal}) > 1:
            other = redealt(state, seat, rng)
            differed += other.table.hands != state.table.hands  # type: ignore[union-attr]
            seed = rng.randrange(1 << 30)
            assert _choice(state, seat, round_events, seed) == _choice(other, seat, round_events, seed)
            checked += 1
        tile, end = rng.choice(legal)
        for event in session.decide(PlayTile(seat, tile, end)):
            if event["type"] == "round_dealt":
                round_events = []
            round_events.append(event)
    assert differed >= decisions - 1  # the redeals really moved hidden tiles
