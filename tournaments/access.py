"""Who may do what with tournaments, in one place: everyone reads; a signed-in player registers,
withdraws and leaves a running tournament for themselves; the organisers (staff) create tournaments
and schedules, cancel, start now, and withdraw another player. The API's permission classes and
the admin's check of the organiser's actions both ask ``organises``."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from rest_framework import permissions

ONLY_STAFF = gettext_lazy("Only staff can do this.")
ONLY_STAFF_CREATE = gettext_lazy("Only staff can create tournaments.")
WITHDRAW_OTHERS = gettext_lazy("Only staff can withdraw another player.")


def organises(user) -> bool:
    """Whether ``user`` organises tournaments (an active staff member)."""
    return bool(user is not None and user.is_active and user.is_staff)


def may_manage(user) -> bool:
    """Whether ``user`` may take the organiser's actions in the admin (an organiser who may see tournaments there)."""
    return organises(user) and user.has_perm("tournaments.view_tournament")


def may_withdraw(user, player) -> bool:
    """Whether ``user`` may withdraw ``player`` from a running tournament: themself, or an organiser anyone."""
    return (player is not None and player.pk == user.pk) or organises(user)


class IsStaff(permissions.BasePermission):
    """Only organisers."""

    message = ONLY_STAFF

    def has_permission(self, request, view):
        return organises(request.user)


class IsStaffForPost(permissions.BasePermission):
    """Anyone authenticated reads; only organisers create."""

    message = ONLY_STAFF_CREATE

    def has_permission(self, request, view):
        return request.method in permissions.SAFE_METHODS or organises(request.user)
