from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    label = "tournaments"
    verbose_name = _("Tournaments")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from goat.games.filters import game_filter_register
        from goat.web.api.query import IntegerFilter

        from . import errors  # noqa: F401 (declares the tournaments' error codes)

        game_filter_register("tournament", IntegerFilter(
            field_name="tournament_table__tournament_id", min_value=1, max_value=2**63 - 1,
            help_text="Only games of this tournament (its tables' games).",
        ))

        from . import tasks  # noqa: F401 (registers the tasks in every process: the code sends one by name)
        from .services import tournaments_register

        tournaments_register()  # the standings projection of an ended tournament game
