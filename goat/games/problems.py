"""The API's exception handler (DRF ``EXCEPTION_HANDLER``): goat.web.problems', with the engine's
refusals as problem details.

The games app owns the engine's errors and says their HTTP status here, with plain imports: a bad
option combination is a bad request (400 ``invalid_options``), any other rules refusal a 422 with
the engine's ``code``; the detail in the caller's language (goat/games/rules_texts.py: the engine
knows no Django and writes English).
"""

from __future__ import annotations

from typing import Any

from rest_framework.response import Response

from goat.engine.errors import InvalidOptions, RulesError
from goat.games.rules_texts import rules_detail
from goat.web import problems
from goat.web.errors import ServiceError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RulesError):
        exc = ServiceError(exc.code, rules_detail(exc), status=400 if isinstance(exc, InvalidOptions) else 422)
    return problems.exception_handler(exc, context)
