from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PlayersConfig(AppConfig):
    """Players: sign-up, tokens and profiles (the accounts are Django's auth users; their folded
    usernames live in this app's UsernameKey)."""

    name = "goat.players"
    label = "players"
    verbose_name = _("Players")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from goat.players import (
            checks,  # noqa: F401 - registers the system checks
            errors,  # noqa: F401 (declares the players' error codes)
        )
        from goat.players.signals import username_key_sync
        from goat.players.usernames import username_field_install

        username_field_install(get_user_model())  # the one username rule in Django's forms and commands

        post_save.connect(username_key_sync, sender=get_user_model(), dispatch_uid="players_username_key_sync")
        from django.contrib.auth.signals import user_logged_in

        from goat.players.services import time_zone_on_login

        user_logged_in.connect(time_zone_on_login, dispatch_uid="players_time_zone_on_login")
