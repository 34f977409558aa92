"""The ratings app's error codes (docs/api.md "Errors"): each with its HTTP status and title."""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

from goat.web.errors import ErrorCode


class RatingError:
    """Ratings' codes."""

    INSUFFICIENT_CHIPS = ErrorCode("insufficient_chips", 422, pgettext_lazy("problem title", "Insufficient chips"))
    LEFT_GAME = ErrorCode("left_game", 409, pgettext_lazy("problem title", "Left game"))
