"""The fair-play app's error codes (docs/api.md "Errors"): each with its HTTP status and title."""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

from goat.web.errors import ErrorCode


class FairplayError:
    """Fairplay' codes."""

    REPORT_REVIEWED = ErrorCode("report_reviewed", 409, pgettext_lazy("problem title", "Report reviewed"))
