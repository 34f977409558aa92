"""What every tournament service shares: the tournament row, locked, or 404."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from goat.web.errors import ServiceError, WebError

from ..models import Tournament

TOURNAMENT_NOT_FOUND = gettext_lazy("No tournament with that id.")


def not_found() -> ServiceError:
    return WebError.NOT_FOUND(TOURNAMENT_NOT_FOUND)


def locked(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except (Tournament.DoesNotExist, ValueError, TypeError):
        raise not_found() from None
