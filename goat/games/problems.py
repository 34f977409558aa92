"""The API's exception handler (DRF ``EXCEPTION_HANDLER``): goat.web.api.problems', with the engine's
refusals as problem details.

The games app owns the engine's errors: their HTTP status is declared once, in goat.games.errors
(a bad option combination is a bad request, 400 ``invalid_options``; any other rules refusal a 422
with the engine's ``code``, unless declared otherwise); the detail in the caller's language
(goat/games/rules_texts.py: the engine knows no Django and writes English).
"""

from __future__ import annotations

from typing import Any

from rest_framework.response import Response

from goat.engine.errors import RulesError
from goat.games.errors import refusal
from goat.games.rules_texts import rules_detail
from goat.web.api import problems


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RulesError):
        exc = refusal(exc, rules_detail(exc))
    return problems.exception_handler(exc, context)
