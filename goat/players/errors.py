"""The players app's error codes (docs/api.md "Errors"): each with its HTTP status and title."""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

from goat.web.errors import ErrorCode


class PlayerError:
    """Players' codes."""

    BOT_ACCOUNT = ErrorCode("bot_account", 403, pgettext_lazy("problem title", "Bot account"))
    COMPUTER_PLAYER = ErrorCode("computer_player", 403, pgettext_lazy("problem title", "Computer player"))
    INVALID_CREDENTIALS = ErrorCode("invalid_credentials", 400, pgettext_lazy("problem title", "Invalid credentials"))
    INVALID_TIME_ZONE = ErrorCode("invalid_time_zone", 400, pgettext_lazy("problem title", "Invalid time zone"))
    LOGIN_LOCKED_OUT = ErrorCode("login_locked_out", 429, pgettext_lazy("problem title", "Login locked out"))
    SIGNUP_CLOSED = ErrorCode("signup_closed", 403, pgettext_lazy("problem title", "Signup closed"))
    USERNAME_CONFUSABLE = ErrorCode("username_confusable", 400, pgettext_lazy("problem title", "Username confusable"))
    USERNAME_TAKEN = ErrorCode("username_taken", 400, pgettext_lazy("problem title", "Username taken"))
