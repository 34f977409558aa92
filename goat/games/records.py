"""A stored game's signed record (docs/records.md): the engine writes it from the game's unredacted
event log, the server's current key signs it (goat.games.signing). Ended games only."""

from __future__ import annotations

from functools import cache
from importlib.metadata import PackageNotFoundError, version

from django.utils.translation import gettext_lazy

from goat.engine import records
from goat.games import eventstore, services, signing
from goat.games.errors import GameError
from goat.games.models import Game

GAME_NOT_RECORDABLE = gettext_lazy("The game's stored events do not verify, so no record of it can be signed.")


@cache
def engine_name() -> str:
    """The ``Engine`` header: this software and its version."""
    try:
        return f"goat {version('goat')}"
    except PackageNotFoundError:  # running from a checkout that is not installed
        return "goat"


def game_record(*, game: Game) -> str:
    """The signed record of ``game``; 409 ``game_not_ended`` while it runs (its seed is still secret)."""
    if not game.ended:
        raise GameError.GAME_NOT_ENDED(services.GAME_NOT_ENDED)
    events = [eventstore.event_dict(e) for e in eventstore.events_load(game_id=game.pk)]
    try:
        body = records.write_record(events, game=game.pk, rated=game.rated, engine=engine_name())
    except ValueError as exc:
        raise GameError.GAME_NOT_RECORDABLE(GAME_NOT_RECORDABLE) from exc
    return signing.sign(body)


def record_filename(game: Game) -> str:
    return f"goat-game-{game.pk}.txt"
