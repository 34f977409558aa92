"""The computer standing in for ordinary accounts (docs/computer.md, "Stand-ins"; issue 36): the driver
of tests, demos and ``manage.py play_bots`` plays each seat the computer's choice at the level asked
for, from what that seat may see, through the services."""

from __future__ import annotations

import random

import pytest

from apitest import token_client
from computer_play import queue_catch, redealt, state_of
from goat.engine import computer as players
from goat.games import computer, selectors, services
from goat.games.models import Game, Seat
from goat.games.viewer import Viewer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def two_bots(django_user_model):
    return [django_user_model.objects.create_user(username=f"bot{i}", password="x") for i in range(2)]


def seat_choice(game_id: int, level: str, seed: int) -> tuple[int, tuple[str, str]]:
    """The seat to move and the move a computer of ``level`` chooses for it from what its account gets
    from the API (``GET /api/games/{id}/`` and ``…/events/``), with a fresh ``Random(seed)``."""
    game = Game.objects.get(pk=game_id)
    mover = Seat.objects.get(game=game, seat=game.turn).player
    client = token_client(mover)
    view = client.get(f"/api/games/{game_id}/").json()
    events = client.get(f"/api/games/{game_id}/events/").json()["events"]
    return game.turn, players.choose(players.seat_view(view, events), level, random.Random(seed))


def last_play(game_id: int, after: int) -> tuple[int, tuple[str, str]]:
    played = [e for e in selectors.events_for(game=Game.objects.get(pk=game_id), viewer=Viewer.spectator())
              if e["type"] == "tile_played" and e["seq"] > after]
    assert len(played) == 1, played
    return played[0]["seat"], (played[0]["data"]["tile"], played[0]["data"]["end"])


@pytest.mark.parametrize("level", ["random", "strong", "expert"])
def test_each_move_is_the_computers_choice_at_the_level_from_the_seat_view_alone(two_bots, level, monkeypatch):
    game = services.game_create(player=two_bots[0], ruleset="goat-classic", seats=2, options={"move_time": 0}).game
    services.game_join(game_id=game.pk, player=two_bots[1])
    # The driver reads a state whose hidden tiles (the other hand, the bazaar) are dealt again before
    # every read: what the seat may see is unchanged, so its choice must be too.
    shuffle = random.Random(99)
    real_state = selectors.game_state

    def hidden_redealt(*, game, upto=None):
        state = real_state(game=game, upto=upto)
        return redealt(state, state.table.turn, shuffle) if state.table is not None else state

    for step in range(14):
        if state_of(game.pk).ended:
            break
        before = Game.objects.get(pk=game.pk).version
        seat, expected = seat_choice(game.pk, level, seed=step)
        monkeypatch.setattr(selectors, "game_state", hidden_redealt)
        assert computer.stand_ins_play(game_ids=[game.pk], level=level, max_moves=1, seed=step) == 1
        monkeypatch.setattr(selectors, "game_state", real_state)
        assert last_play(game.pk, before) == (seat, expected), f"move {step}"
    assert step >= 6, "too few moves to tell"


def led_by(player, other, **create) -> Game:
    """A running two-seat game whose deal gave ``player`` (seat 0) the lead (the others resigned)."""
    for _ in range(30):
        game = services.game_create(player=player, ruleset="goat-classic", seats=2, **create).game
        if other is not None:
            services.game_join(game_id=game.pk, player=other)
        game.refresh_from_db()
        if game.turn == 0:
            return game
        services.game_resign(game_id=game.pk, player=player)
    pytest.fail("no deal gave seat 0 the lead")


def test_only_the_accounts_of_the_prefix_are_played_for(two_bots, django_user_model):
    person = django_user_model.objects.create_user(username="olga", password="x")
    game = led_by(two_bots[0], person, options={"move_time": 0})
    moves = computer.stand_ins_play(game_ids=[game.pk], seed=1)
    game.refresh_from_db()
    assert game.status == "running" and game.turn == 1  # olga's turn: nobody plays it for her
    plays = [e["seat"] for e in selectors.events_for(game=game, viewer=Viewer.spectator())
             if e["type"] == "tile_played"]
    assert moves >= 1 and plays == [0] * moves


def test_with_everyone_a_computer_players_seat_is_left_to_its_own_task(two_bots, monkeypatch):
    sent = queue_catch(monkeypatch)
    game = led_by(two_bots[0], None, computer_players=1, computer_level="random")
    assert computer.stand_ins_play(everyone=True, game_ids=[game.pk], seed=2) == 1
    game.refresh_from_db()
    assert game.turn == 1 and sent[-1] == (game.pk, game.version)  # the computer's task, queued, plays it


def test_an_unknown_level_is_refused():
    with pytest.raises(ValueError, match="unknown computer level"):
        computer.stand_ins_play(level="greedy")
