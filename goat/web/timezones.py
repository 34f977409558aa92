"""The reader's time zone: every date and time a page shows is in it (docs/site.md "Dates").

A player may choose one (``PlayerSetting.time_zone``, the play page's settings form); anyone else, and
a player who has not chosen, gets the default of the page's language (``GOAT_LANGUAGE_TIME_ZONES``:
Europe/Moscow for Russian, UTC otherwise). The choice is kept in the session when it is made or
when the player signs in, so a request reads no row for it. ``TimeZoneMiddleware`` activates the
zone for the request (Django's ``timezone.activate``): the ``date`` filter and ``{{ at|when }}``
(goat.games.templatetags.site_words) then speak in it; ``datetime`` attributes and the API stay UTC ISO.
"""

from __future__ import annotations

import zoneinfo
from functools import lru_cache

from django.conf import settings
from django.utils import timezone, translation

#: the session key of the signed-in player's chosen zone ("" when they chose none)
SESSION_KEY = "goat_time_zone"


@lru_cache(maxsize=1)
def available() -> frozenset[str]:
    """Every IANA zone name this system knows."""
    return frozenset(zoneinfo.available_timezones())


def valid(name: str) -> bool:
    return name in available()


def default_for(language: str | None) -> str:
    """The zone of a reader who chose none: by the page's language."""
    zones = getattr(settings, "GOAT_LANGUAGE_TIME_ZONES", {})
    return zones.get((language or "").split("-")[0], settings.TIME_ZONE)


def remember(request, name: str) -> None:
    """Keep ``name`` (a valid zone or "") as the session's choice."""
    if hasattr(request, "session"):
        request.session[SESSION_KEY] = name


def zone_of(request) -> str:
    """The zone a request's pages speak in."""
    name = request.session.get(SESSION_KEY, "") if hasattr(request, "session") else ""
    return name if name and valid(name) else default_for(translation.get_language())


class TimeZoneMiddleware:
    """Activates the reader's zone for the request (after LocaleMiddleware: the default follows the
    language)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        timezone.activate(zoneinfo.ZoneInfo(zone_of(request)))
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()

