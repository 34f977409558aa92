"""Who may see what of the games, in one place (Django permissions): an auditor (the permission
``goat.audit_game``, "Can audit games") sees a running game's hidden information where they hold no
seat, and the admin's replay, verification and exports; staff see a private table's game while it
runs and every game on a player's page. What a viewer is shown is decided by goat.games.selectors
on these answers."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext_lazy

#: the permission that lets a user see hidden information and audit games in the admin
AUDIT_PERMISSION = "goat.audit_game"
AUDIT_REQUIRED = gettext_lazy(
    "You need the permission “Can audit games” for the replay, verification and exports.")


def may_audit(user) -> bool:
    """Whether ``user`` audits games (the permission; a superuser has every permission). Django's
    ModelBackend keeps a user's permissions on the user object once asked, so asking again costs
    no query."""
    return bool(user is not None and getattr(user, "is_authenticated", False) and user.has_perm(AUDIT_PERMISSION))


def sees_private_games(user) -> bool:
    """Whether ``user`` sees every private table's game and challenge, not only their own (staff)."""
    return bool(user is not None and getattr(user, "is_authenticated", False) and user.is_staff)


def audit_required(user) -> None:
    """``PermissionDenied`` (the admin's 403) unless ``user`` audits games."""
    if not may_audit(user):
        raise PermissionDenied(AUDIT_REQUIRED)
