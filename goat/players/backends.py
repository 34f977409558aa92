"""Log-in by username in its normal form: ``ALICE`` and ``Ａｌｉｃｅ`` are ``alice`` (goat.players.usernames)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from goat.players.usernames import username_fold, username_normal


def user_by_username(username: str):
    """The account whose name has the fold of ``username``; else (an account migrated with a
    colliding name, which has no key yet) the one with exactly this normal form; else None."""
    User = get_user_model()
    user = User._default_manager.filter(username_key__folded=username_fold(username)).first()
    if user is None:
        user = User._default_manager.filter(**{User.USERNAME_FIELD: username_normal(username)}).first()
    return user


class UsernameBackend(ModelBackend):
    """Django's ModelBackend with the account found by the folded username."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        user = user_by_username(username)
        if user is None:
            get_user_model()().set_password(password)  # as long as a wrong password (ModelBackend does this)
            return None
        if not user.has_usable_password():
            # a computer player (no password): refused, after the same work as a wrong password
            get_user_model()().set_password(password)
            return None
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None
