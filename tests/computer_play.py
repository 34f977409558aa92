"""Helpers of the computer-player tests (importable as ``computer_play``: tests/ is on the path): the
computer moves a commit queues, caught instead of sent, and run in order; a game played out by its
one human through the service and its computers through their tasks."""

from __future__ import annotations

import random
from dataclasses import replace

from goat import engine
from goat.engine.tiles import BIT, tile_str
from goat.games import computer, eventstore, services
from goat.games.models import Game, Seat


def queue_catch(monkeypatch) -> list[tuple[int, int]]:
    """From now on the computer moves the commits queue land in the returned list as ``(game_id,
    version)`` instead of the broker."""
    sent: list[tuple[int, int]] = []

    def queue(*, game_id: int, version: int):
        return lambda: sent.append((game_id, version))

    monkeypatch.setattr(services, "computer_move_queue", queue)
    return sent


def drain(sent: list[tuple[int, int]], *, seed: int = 0) -> int:
    """Run the queued computer moves (and those they queue) in order; how many played."""
    rng = random.Random(seed)
    played = 0
    while sent:
        game_id, version = sent.pop(0)
        played += computer.computer_move(game_id=game_id, version=version, rng=rng)
    return played


def state_of(game_id: int):
    return eventstore.state_load(Game.objects.get(pk=game_id))


def play_out(game_id: int, user, sent, *, seed: int = 0, limit: int = 3000) -> Game:
    """``user`` (the one human) plays random legal moves through the service, the computers through
    their tasks, until the game ends; returns the ended game."""
    rng = random.Random(seed)
    seat = Seat.objects.get(game_id=game_id, player=user).seat
    for _ in range(limit):
        drain(sent, seed=rng.randrange(1 << 30))
        state = state_of(game_id)
        if state.ended:
            return Game.objects.get(pk=game_id)
        assert state.turn == seat, "a computer's turn with no move queued"
        tile, end = rng.choice(engine.legal_moves(state, seat))
        services.game_play_tile(game_id=game_id, player=user, tile=tile_str(tile), end=end)
    raise AssertionError("the game did not end")


def play_people(game_id: int, *, seed: int = 0) -> Game:
    """Random legal moves by whoever is to move (a game of people only) until the game ends."""
    rng = random.Random(seed)
    while True:
        game = Game.objects.get(pk=game_id)
        if game.ended:
            return game
        state = eventstore.state_load(game)
        tile, end = rng.choice(engine.legal_moves(state))
        player = Seat.objects.get(game=game, seat=state.turn).player
        services.game_play_tile(game_id=game_id, player=player, tile=tile_str(tile), end=end)


def redealt(state, seat: int, rng: random.Random):
    """The same game state with every tile ``seat`` cannot see (the others' hands, the bazaar) dealt
    again, each hand and the bazaar keeping its size: the seat's view of it is unchanged."""
    t = state.table
    hidden = [tile for s, hand in enumerate(t.hands) if s != seat for tile in hand] + list(t.bazaar)
    rng.shuffle(hidden)
    hands, at = [], 0
    for s, hand in enumerate(t.hands):
        if s == seat:
            hands.append(tuple(hand))
        else:
            hands.append(tuple(hidden[at:at + len(hand)]))
            at += len(hand)
    held = tuple(sum(BIT[tile] for tile in hand) for hand in hands)
    return replace(state, table=replace(t, hands=tuple(hands), held=held, bazaar=tuple(hidden[at:])))
