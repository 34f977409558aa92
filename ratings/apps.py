from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    label = "ratings"
    verbose_name = _("Ratings, chips and leaderboards")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from goat.players.signals import profile_sections

        from . import (
            errors,  # noqa: F401 (declares the ratings' error codes)
            tasks,  # noqa: F401 (registers the tasks in every process, as the beat schedules them)
        )
        from .selectors import player_profile_section
        from .services import ratings_register

        profile_sections.connect(player_profile_section, dispatch_uid="ratings_profile_section")
        ratings_register()  # the four projections of an ended game and the ante's receivers
