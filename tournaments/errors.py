"""The tournaments app's error codes (docs/api.md "Errors"): each with its HTTP status and title."""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

from goat.web.errors import ErrorCode


class TournamentError:
    """Tournaments' codes."""

    ALREADY_REGISTERED = ErrorCode("already_registered", 409, pgettext_lazy("problem title", "Already registered"))
    ALREADY_WITHDRAWN = ErrorCode("already_withdrawn", 409, pgettext_lazy("problem title", "Already withdrawn"))
    ENTRY_CONDITION_NOT_MET = ErrorCode(
        "entry_condition_not_met", 422, pgettext_lazy("problem title", "Entry condition not met"))
    INVITE_CODE_REQUIRED = ErrorCode(
        "invite_code_required", 403, pgettext_lazy("problem title", "Invite code required"))
    INVITE_CODE_WRONG = ErrorCode("invite_code_wrong", 403, pgettext_lazy("problem title", "Invite code wrong"))
    NOT_REGISTERED = ErrorCode("not_registered", 404, pgettext_lazy("problem title", "Not registered"))
    REGISTRATION_CLOSED = ErrorCode("registration_closed", 422, pgettext_lazy("problem title", "Registration closed"))
    TOURNAMENT_ENDED = ErrorCode("tournament_ended", 409, pgettext_lazy("problem title", "Tournament ended"))
    TOURNAMENT_FULL = ErrorCode("tournament_full", 422, pgettext_lazy("problem title", "Tournament full"))
    TOURNAMENT_NOT_RUNNING = ErrorCode(
        "tournament_not_running", 409, pgettext_lazy("problem title", "Tournament not running"))
    TOURNAMENT_NOT_SCHEDULED = ErrorCode(
        "tournament_not_scheduled", 409, pgettext_lazy("problem title", "Tournament not scheduled"))
