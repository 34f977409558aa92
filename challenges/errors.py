"""The challenges app's error codes (docs/api.md "Errors"): each with its HTTP status and title."""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

from goat.web.errors import ErrorCode


class ChallengeError:
    """Challenges' codes."""

    ACCOUNT_CLOSED = ErrorCode("account_closed", 422, pgettext_lazy("problem title", "Account closed"))
    ACCOUNT_HAS_GAMES = ErrorCode("account_has_games", 409, pgettext_lazy("problem title", "Account has games"))
    BOT_DECLINES_RULESET = ErrorCode(
        "bot_declines_ruleset", 422, pgettext_lazy("problem title", "Bot declines ruleset"))
    CANNOT_CHALLENGE_SELF = ErrorCode(
        "cannot_challenge_self", 422, pgettext_lazy("problem title", "Cannot challenge self"))
    CHALLENGE_CODE_WRONG = ErrorCode(
        "challenge_code_wrong", 403, pgettext_lazy("problem title", "Challenge code wrong"))
    CHALLENGE_EXPIRED = ErrorCode("challenge_expired", 409, pgettext_lazy("problem title", "Challenge expired"))
    CHALLENGE_FULL = ErrorCode("challenge_full", 409, pgettext_lazy("problem title", "Challenge full"))
    CHALLENGE_NOT_OPEN = ErrorCode("challenge_not_open", 409, pgettext_lazy("problem title", "Challenge not open"))
    NOT_A_BOT = ErrorCode("not_a_bot", 403, pgettext_lazy("problem title", "Not a bot"))
    TOO_MANY_CHALLENGES = ErrorCode("too_many_challenges", 409, pgettext_lazy("problem title", "Too many challenges"))
    TOO_MANY_OPPONENTS = ErrorCode("too_many_opponents", 422, pgettext_lazy("problem title", "Too many opponents"))
    UNKNOWN_PLAYER = ErrorCode("unknown_player", 422, pgettext_lazy("problem title", "Unknown player"))
