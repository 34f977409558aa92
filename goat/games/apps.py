from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GoatConfig(AppConfig):
    """The games app. Its label stays "goat" (the package moved from goat/ to goat/games/), so its
    tables, migrations and admin URLs (/admin/goat/game/) are those it had before the move."""

    name = "goat.games"
    label = "goat"
    verbose_name = _("Goat games")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The Celery app is loaded with Django (not in goat/__init__.py, so that importing the pure
        # engine, goat.engine, never drags in Celery or Django).
        from goat import celery  # noqa: F401
        from goat.games import (
            errors,  # noqa: F401 (declares the games' and the engine's error codes)
            tasks,  # noqa: F401 (registers the tasks with the Celery app)
        )
        from goat.games.gauges import games_gauges
        from goat.web.observe.metrics import scrape_register

        scrape_register(games_gauges)  # /metrics: overdue clocks, projection backlog
