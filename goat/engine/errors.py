"""Typed rules errors. Each has a stable machine-readable ``code`` and a ``detail`` a player understands.

``context`` holds the parameters the detail names (a tile, an end, a seat as people count it: from 1,
``rulesets.seat_number``), so that a layer above can say the same sentence in the player's language
(goat/games/rules_texts.py). A detail built from values by ``said`` also keeps its English
``template``, which that layer translates and fills with ``context``.
"""

from __future__ import annotations

from typing import Self

# The one sentence of each refusal of a command's precondition (the services answer with these).
NOT_SEATED = "You have no seat at this game."
ALREADY_SEATED = "You already have a seat at this game."
#: ``game_not_waiting`` of a join (and of a cancel)
NOT_WAITING = "This game is not waiting for players."
#: ``game_not_waiting`` of a leave
STARTED = "The game has started; its seats can no longer be left."
NOT_RUNNING = "The game is not running."
#: ``seat_taken``: a join that chose a seat someone holds (a goat-pairs table: the seat chooses the partner)
SEAT_TAKEN = "That seat is taken: choose a free one."
#: ``invalid_seat``: a join that chose a seat the game does not have
NO_SUCH_SEAT = "This game has no such seat."


class RulesError(Exception):
    """Base class of every error the engine raises on purpose."""

    code: str = "rules_error"
    #: the position of the refused event in a log, when a replay refused it
    seq: int | None = None
    #: the English template of ``detail`` (``str.format`` of ``context``), when ``said`` built it
    template: str | None = None

    def __init__(self, code: str | None = None, detail: str = "", **context: object) -> None:
        if code is not None:
            self.code = code
        self.detail = detail or self.code.replace("_", " ")
        self.context = context
        super().__init__(f"{self.code}: {self.detail}")

    @classmethod
    def said(cls, code: str | None, template: str, **params: object) -> Self:
        """The error whose detail is ``template`` filled with ``params`` (``str.format``); both travel
        with it (``template``, ``context``), so the sentence can be said in another language."""
        error = cls(code, template.format(**params), **params)
        error.template = template
        return error


class InvalidOptions(RulesError):
    """A ruleset name or option combination that cannot be played."""

    code = "invalid_options"


class IllegalMove(RulesError):
    """A command that the rules do not allow in this state (not your turn, tile does not fit, ...)."""

    code = "illegal_move"


class InvalidEvent(RulesError):
    """An event that cannot follow the events before it (found while replaying or verifying a log)."""

    code = "invalid_event"


class StateFormatError(RulesError):
    """A state's JSON form that cannot be read (see :mod:`goat.engine.json_form`): rebuild it from events."""

    code = "invalid_state_format"


class UnknownStateFormat(StateFormatError):
    """A state's JSON form written in a format version this engine does not read."""

    code = "unknown_state_format"
