from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChallengesConfig(AppConfig):
    name = "challenges"
    label = "challenges"
    verbose_name = _("Challenges")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from goat.games import signals

        from . import (
            errors,  # noqa: F401 (declares the challenges' error codes)
            tasks,  # noqa: F401 (registers the tasks in every process: the beat sends one by name)
        )
        from .notify import challenges_catch_up

        # a feed that lost its subscription asks what it missed: the challenges that name its player
        signals.feed_catch_up.connect(challenges_catch_up, dispatch_uid="challenges.catch_up")
