"""Failed-login lockout (django-axes) as goat configures it (settings "Login lockout").

Failures are counted per account (its folded username, so ``Alice`` and ``ＡＬＩＣＥ`` count
together) and per client address (``goat.web.api.throttling.client_ip``: the direct peer unless it is a
trusted proxy), with three thresholds within the cool-off (``LockoutHandler``), so that a lockout
holds the guesser and cannot be turned on others cheaply:

* ``GOAT_LOGIN_FAILURE_LIMIT`` (10) failures for one account from one address lock that account at
  that address only: its owner elsewhere still logs in;
* ``GOAT_LOGIN_ADDRESS_FAILURE_LIMIT`` (30) failures from one address, whatever accounts, lock that
  address (one guesser trying many accounts);
* ``GOAT_LOGIN_ACCOUNT_FAILURE_LIMIT`` (300) failures for one account, from any addresses, lock the
  account everywhere (a guess spread over many addresses): nine addresses no longer lock anyone out.

A lockout lasts until the cool-off has passed since its last counted failure; attempts while locked
out are refused without being counted, so the lockout ends at a time a client can be told.

A locked-out API client gets 429 ``login_locked_out`` with ``Retry-After``; the admin login page a
429 page with ``Retry-After``.
"""

from __future__ import annotations

import math

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.db.models import Max, Q, Sum
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext_lazy

from goat.players.usernames import username_fold
from goat.web.api.problems import problem_json_response

LOCKED_OUT = gettext_lazy("Too many failed logins for this account or from this address; try again later.")
#: AccessAttempt.username is 255 characters
_USERNAME_LENGTH = 255


def lockout_limits() -> tuple[int, int, int]:
    """The failures that lock (an account at an address, an address, an account), in the order of
    ``AXES_LOCKOUT_PARAMETERS`` (settings)."""
    return (settings.AXES_FAILURE_LIMIT, settings.GOAT_LOGIN_ADDRESS_FAILURE_LIMIT,
            settings.GOAT_LOGIN_ACCOUNT_FAILURE_LIMIT)


class LockoutHandler(AxesDatabaseHandler):
    """django-axes' database handler with a threshold of its own for each count (the module's docstring).

    axes compares one number, ``get_failures``, with one limit, ``AXES_FAILURE_LIMIT``; here that
    number is each count scaled to that limit (a count at its own threshold reaches it), the largest."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        base = settings.AXES_FAILURE_LIMIT
        counts = [attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
                  for attempts in self.get_user_attempts(request, credentials)]
        return max((count * base // limit for count, limit in zip(counts, lockout_limits(), strict=True)),
                   default=0)


def lockout_username(request: HttpRequest, credentials: dict | None) -> str | None:
    """``AXES_USERNAME_CALLABLE``: the account a login attempt names, in its folded form."""
    username = (credentials or {}).get("username")
    if username is None and request is not None:
        username = getattr(request, "POST", {}).get("username")
    if not isinstance(username, str):
        return None
    return username_fold(username)[:_USERNAME_LENGTH]


def lockout_retry_after(request: HttpRequest, credentials: dict | None = None) -> int:
    """Seconds until the lockout of this request's account and address has surely ended: the cool-off
    after the last counted failure of either (at least 1)."""
    from axes.helpers import get_client_ip_address, get_cool_off
    from axes.models import AccessAttempt

    cool_off = get_cool_off(request)
    now = timezone.now()
    match = Q(ip_address=get_client_ip_address(request))
    username = lockout_username(request, credentials)
    if username is not None:
        match |= Q(username=username)
    last = AccessAttempt.objects.filter(match, attempt_time__gte=now - cool_off).aggregate(last=Max("attempt_time"))
    if last["last"] is None:
        return max(1, math.ceil(cool_off.total_seconds()))
    return max(1, math.ceil((last["last"] + cool_off - now).total_seconds()))


def login_locked_out(request: HttpRequest) -> bool:
    """Whether django-axes refused (or just locked) the login attempt of ``request``."""
    return bool(getattr(request, "axes_locked_out", False))


def lockout_response(request: HttpRequest, original_response: HttpResponse | None = None,
                     credentials: dict | None = None) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: what a locked-out login attempt is answered with."""
    if original_response is not None and original_response.status_code == 429:
        return original_response  # the API already answered with its problem
    retry_after = lockout_retry_after(request, credentials)
    if request.path.startswith("/api/"):
        response = problem_json_response(status=429, code="login_locked_out", detail=LOCKED_OUT)
    else:
        minutes = max(1, math.ceil(retry_after / 60))
        response = HttpResponse(render_to_string("players/locked_out.html",
                                                 {"detail": LOCKED_OUT, "minutes": minutes}, request=request),
                                status=429)
    response["Retry-After"] = str(retry_after)
    return response
