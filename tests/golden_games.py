"""The engine's golden logs (tests/engine/golden) stored as games of the service, for the app tests
(importable as ``golden_games``: tests/ is on the path)."""

from __future__ import annotations

import json
from pathlib import Path

from django.utils import timezone

from goat import engine
from goat.games import eventstore, services
from goat.games.models import Game, GameStatus, Seat
from ratings.chips import chips_stake_for_seat
from ratings.services import ratings_apply_game

GOLDEN = Path(__file__).resolve().parent / "engine" / "golden"


def golden_log(name: str) -> list[dict]:
    return [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]


def record_logged_game(log: list[dict], django_user_model) -> Game:
    """Store the ended game ``log`` as the service stores a game played through it: the game row with the
    options of its first event, the seats (players created by name) with their stakes, the events
    (hash-chained) and the read model, and the ratings applied when it ended."""
    created = log[0]["data"]
    state = engine.replay(log).state
    assert state.ended
    users = {name: django_user_model.objects.get_or_create(username=name)[0] for name in state.players}
    game = Game.objects.create(
        ruleset=created["ruleset"], options=created["options"], seats=created["seats"], status=GameStatus.WAITING,
        server_seed=state.revealed_seed, server_seed_commitment=created["server_seed_commitment"],
        created_by=users[state.players[0]],
    )
    for event in log:
        if event["type"] == "seat_taken":
            data = event["data"]
            player = users[data["player"]]
            chips_stake_for_seat(game=game, player=player, seat=data["seat"], options=state.options)
            Seat.objects.create(game=game, seat=data["seat"], player=player, client_seed=data["client_seed"])
    services._sync_read_model(game, state, timezone.now())
    eventstore.events_append(game=game, events=[{k: e[k] for k in ("type", "seat", "data")} for e in log],
                             actor=None, update_fields=services._COMMAND_FIELDS)
    assert ratings_apply_game(game_id=game.pk)
    return game
