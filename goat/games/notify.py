"""Live delivery of committed commands (ARCHITECTURE.md "live delivery", API.md "Live streams").

After a command commits, ``command_committed`` publishes ``{"version"}`` on the game's channel (the
game streams read what changed through the selectors) and the feed events on the seated players'
channels: ``game_started``, ``your_turn``, ``game_ended``. Rematch offers and tournament tables are
published by their own services with ``feed_publish``. Publishing happens on commit, so a stream
never hears of a version that a rollback took back.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from goat.games.models import Game, GameStatus, Seat
from goat.web import live

#: seat -> player id of running games (seats do not change once a game runs): the feed's your_turn
#: on every move would otherwise cost a query
_SEATS: OrderedDict[int, dict[int, int]] = OrderedDict()
_SEATS_MAX = 4096
OPEN = (GameStatus.WAITING, GameStatus.RUNNING)


def game_channel(game_id: int) -> str:
    return f"game:{game_id}"


def player_channel(player_id: int) -> str:
    return f"player:{player_id}"


def feed_publish(player_ids: Iterable[int], kind: str, data: dict[str, Any]) -> None:
    """The feed event ``kind`` to each of ``player_ids``, in one payload."""
    live.publish_all([(player_channel(player_id), feed_message(kind, data)) for player_id in player_ids])


def feed_message(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"kind": kind, "data": data}


def _seats(game_id: int, running: bool) -> dict[int, int]:
    seats = _SEATS.get(game_id)
    if seats is None:
        seats = dict(Seat.objects.filter(game_id=game_id).values_list("seat", "player_id"))
        if running:
            _SEATS[game_id] = seats
            if len(_SEATS) > _SEATS_MAX:
                _SEATS.popitem(last=False)
    return seats


def command_committed(game: Game, was_status: str) -> Callable[[], None]:
    """What to publish once the command that brought ``game`` to its current version commits (the
    values are taken now: the row object may change before the commit)."""
    game_id, version, status, turn = game.pk, game.version, game.status, game.turn
    deadline = game.deadline.isoformat() if game.deadline is not None else None
    result = game.result

    def send() -> None:
        messages = [(game_channel(game_id), {"version": version})]
        started = was_status == GameStatus.WAITING and status == GameStatus.RUNNING
        ended = was_status in OPEN and status not in OPEN
        if started or ended or turn is not None:
            seats = _seats(game_id, status == GameStatus.RUNNING)
            if ended:
                _SEATS.pop(game_id, None)
            for player_id in seats.values():
                if started:
                    messages.append((player_channel(player_id), feed_message("game_started", {"game": game_id})))
                if ended:
                    messages.append((player_channel(player_id),
                                     feed_message("game_ended", {"game": game_id, "result": result})))
            if turn is not None and turn in seats:
                turn_data = {"game": game_id, "version": version, "deadline": deadline}
                messages.append((player_channel(seats[turn]), feed_message("your_turn", turn_data)))
        live.publish_all(messages)  # one payload: one round trip to the backend per command

    return send
