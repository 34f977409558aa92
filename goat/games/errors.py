"""The games app's error codes (docs/api.md "Errors"), each with its HTTP status and title: its own
(``GameError``) and the engine's refusals (``RulesRefusal``: the engine knows no HTTP, so their status is
said here, once). ``refusal`` turns an engine error into the ServiceError the API answers with."""

from __future__ import annotations

from django.utils.translation import gettext_lazy, pgettext_lazy

from goat.engine.errors import RulesError
from goat.web.errors import ErrorCode, ServiceError, error_code


class GameError:
    """The games app's own codes."""

    ALREADY_SEATED = ErrorCode("already_seated", 409, pgettext_lazy("problem title", "Already seated"))
    ANALYSIS_NOT_REQUESTED = ErrorCode(
        "analysis_not_requested", 404, pgettext_lazy("problem title", "Analysis not requested"))
    COMPUTER_SEAT = ErrorCode("computer_seat", 403, pgettext_lazy("problem title", "Computer seat"))
    GAME_CANCELLED = ErrorCode("game_cancelled", 409, pgettext_lazy("problem title", "Game cancelled"))
    GAME_FULL = ErrorCode("game_full", 409, pgettext_lazy("problem title", "Game full"))
    GAME_NOT_ENDED = ErrorCode("game_not_ended", 409, pgettext_lazy("problem title", "Game not ended"))
    GAME_NOT_RECORDABLE = ErrorCode("game_not_recordable", 409, pgettext_lazy("problem title", "Game not recordable"))
    INVALID_CLIENT_SEED = ErrorCode("invalid_client_seed", 400, pgettext_lazy("problem title", "Invalid client seed"))
    INVALID_IF_MATCH = ErrorCode("invalid_if_match", 400, pgettext_lazy("problem title", "Invalid if match"))
    NOT_SEATED = ErrorCode("not_seated", 403, pgettext_lazy("problem title", "Not seated"))
    TOO_MANY_COMPUTER_GAMES = ErrorCode(
        "too_many_computer_games", 409, pgettext_lazy("problem title", "Too many computer games"))
    VERSION_MISMATCH = ErrorCode("version_mismatch", 412, pgettext_lazy("problem title", "Version mismatch"))


#: the detail of ``GAME_NOT_ENDED`` wherever a finished game's record, verification or analysis is asked too early
GAME_NOT_ENDED = gettext_lazy("The game has not ended yet.")


class RulesRefusal:
    """The engine's refusals (goat.engine.errors): a bad option combination is a bad request (400),
    a command refused before the rules apply has its own status, any other rule's refusal is 422."""

    DEAL_MISMATCH = ErrorCode("deal_mismatch", 422, pgettext_lazy("problem title", "Deal mismatch"))
    DRAW_MISMATCH = ErrorCode("draw_mismatch", 422, pgettext_lazy("problem title", "Draw mismatch"))
    END_REQUIRED = ErrorCode("end_required", 422, pgettext_lazy("problem title", "End required"))
    EVENT_AFTER_END = ErrorCode("event_after_end", 422, pgettext_lazy("problem title", "Event after end"))
    FORCED_ACTION_MISSING = ErrorCode(
        "forced_action_missing", 422, pgettext_lazy("problem title", "Forced action missing"))
    GAME_EXISTS = ErrorCode("game_exists", 422, pgettext_lazy("problem title", "Game exists"))
    GAME_NOT_RUNNING = ErrorCode("game_not_running", 422, pgettext_lazy("problem title", "Game not running"))
    GAME_NOT_WAITING = ErrorCode("game_not_waiting", 409, pgettext_lazy("problem title", "Game not waiting"))
    ILLEGAL_MOVE = ErrorCode("illegal_move", 422, pgettext_lazy("problem title", "Illegal move"))
    INVALID_END = ErrorCode("invalid_end", 422, pgettext_lazy("problem title", "Invalid end"))
    INVALID_EVENT = ErrorCode("invalid_event", 422, pgettext_lazy("problem title", "Invalid event"))
    INVALID_OPTIONS = ErrorCode("invalid_options", 400, pgettext_lazy("problem title", "Invalid options"))
    INVALID_SEAT = ErrorCode("invalid_seat", 422, pgettext_lazy("problem title", "Invalid seat"))
    INVALID_SEED = ErrorCode("invalid_seed", 422, pgettext_lazy("problem title", "Invalid seed"))
    INVALID_STATE_FORMAT = ErrorCode(
        "invalid_state_format", 422, pgettext_lazy("problem title", "Invalid state format"))
    INVALID_TILE = ErrorCode("invalid_tile", 422, pgettext_lazy("problem title", "Invalid tile"))
    MALFORMED_EVENT = ErrorCode("malformed_event", 422, pgettext_lazy("problem title", "Malformed event"))
    MUST_LEAD_WITH = ErrorCode("must_lead_with", 422, pgettext_lazy("problem title", "Must lead with"))
    NO_CLOCK = ErrorCode("no_clock", 422, pgettext_lazy("problem title", "No clock"))
    NO_CONSISTENT_DEAL = ErrorCode("no_consistent_deal", 422, pgettext_lazy("problem title", "No consistent deal"))
    NO_GAME = ErrorCode("no_game", 422, pgettext_lazy("problem title", "No game"))
    NO_TILES = ErrorCode("no_tiles", 422, pgettext_lazy("problem title", "No tiles"))
    NOT_YOUR_TURN = ErrorCode("not_your_turn", 422, pgettext_lazy("problem title", "Not your turn"))
    OPTIONS_NOT_RESOLVED = ErrorCode(
        "options_not_resolved", 422, pgettext_lazy("problem title", "Options not resolved"))
    RULES_ERROR = ErrorCode("rules_error", 422, pgettext_lazy("problem title", "Rules error"))
    SEAT_TAKEN = ErrorCode("seat_taken", 409, pgettext_lazy("problem title", "Seat taken"))
    SEATS_TAKEN = ErrorCode("seats_taken", 422, pgettext_lazy("problem title", "Seats taken"))
    SEED_MISMATCH = ErrorCode("seed_mismatch", 422, pgettext_lazy("problem title", "Seed mismatch"))
    SEED_NOT_REVEALED = ErrorCode("seed_not_revealed", 422, pgettext_lazy("problem title", "Seed not revealed"))
    SEED_UNKNOWN = ErrorCode("seed_unknown", 422, pgettext_lazy("problem title", "Seed unknown"))
    TILE_DOES_NOT_FIT = ErrorCode("tile_does_not_fit", 422, pgettext_lazy("problem title", "Tile does not fit"))
    TILE_NOT_IN_HAND = ErrorCode("tile_not_in_hand", 422, pgettext_lazy("problem title", "Tile not in hand"))
    UNEXPECTED_EVENT = ErrorCode("unexpected_event", 422, pgettext_lazy("problem title", "Unexpected event"))
    UNFORCED_DRAW = ErrorCode("unforced_draw", 422, pgettext_lazy("problem title", "Unforced draw"))
    UNFORCED_KNOCK = ErrorCode("unforced_knock", 422, pgettext_lazy("problem title", "Unforced knock"))
    UNKNOWN_EVENT = ErrorCode("unknown_event", 422, pgettext_lazy("problem title", "Unknown event"))
    UNKNOWN_RULESET = ErrorCode("unknown_ruleset", 400, pgettext_lazy("problem title", "Unknown ruleset"))
    UNKNOWN_STATE_FORMAT = ErrorCode(
        "unknown_state_format", 422, pgettext_lazy("problem title", "Unknown state format"))
    WRONG_SEQ = ErrorCode("wrong_seq", 422, pgettext_lazy("problem title", "Wrong seq"))


#: the engine's refusals of a play (goat.engine.moves): the game is not running, not the seat's turn, or the
#: tile or end is not one the rules allow
PLAY_REFUSALS = (RulesRefusal.GAME_NOT_RUNNING, RulesRefusal.NOT_YOUR_TURN, RulesRefusal.INVALID_TILE,
                 RulesRefusal.TILE_NOT_IN_HAND, RulesRefusal.INVALID_END, RulesRefusal.MUST_LEAD_WITH,
                 RulesRefusal.END_REQUIRED, RulesRefusal.TILE_DOES_NOT_FIT)

#: the engine's refusals of a command's precondition, answered by a service as its own refusals with their
#: status: the caller holds no seat (403), the game is past joining and leaving (409), or it is not running
#: (422; the tournaments' withdrawal tells a game that ended meanwhile by it), or a join chose a seat
#: (goat-pairs: the partner) that is taken (409) or that the game does not have (422); the others are the
#: rules' and rendered as the engine's errors
PRECONDITIONS = frozenset({"not_seated", "already_seated", "game_not_waiting", "game_not_running", "seat_taken",
                           "invalid_seat"})


def refusal(error: RulesError, detail: str) -> ServiceError:
    """``error`` as the API answers it: its code, its declared status (422 for a code nobody declared), ``detail``
    (the engine's words in the caller's language: goat.games.rules_texts)."""
    declared = error_code(error.code)
    return ServiceError(error.code, detail, status=declared.status if declared is not None else 422)
