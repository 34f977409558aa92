"""The players app's signals: ``username_key_sync`` keeps ``UsernameKey`` in step with the auth user's
username, whoever saves the user (sign-up, the admin, ``createsuperuser``, ``manage.py run``);
``profile_sections`` asks the apps above for their part of a profile."""

from __future__ import annotations

from django.dispatch import Signal

from goat.players.models import UsernameKey
from goat.players.usernames import username_fold, username_skeleton

#: a profile is put together (goat.players.services.player_profile), sent with ``player`` and
#: ``include_private``: each receiver returns the fields its app adds (ratings: the rating and chips)
profile_sections = Signal()


def username_key_sync(sender, instance, created, update_fields=None, raw=False, **kwargs) -> None:
    """Write the user's folded name and its skeleton. A save that did not touch the username
    (``last_login`` on every login) costs nothing; a fold or a skeleton taken by another account raises
    IntegrityError, rolling the save back."""
    if raw or (update_fields is not None and "username" not in update_fields):
        return
    name = instance.get_username()
    key = {"folded": username_fold(name), "skeleton": username_skeleton(name)}
    if created:
        UsernameKey.objects.create(user=instance, **key)
    else:
        UsernameKey.objects.update_or_create(user=instance, defaults=key)
