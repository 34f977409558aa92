from django.apps import AppConfig


class GoatConfig(AppConfig):
    name = "goat"
    label = "goat"
    verbose_name = "Goat games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The Celery app is loaded with Django (not in goat/__init__.py, so that importing the pure
        # engine, goat.engine, never drags in Celery or Django).
        from . import celery  # noqa: F401
        from . import checks, services, tasks  # noqa: F401 - checks registers system checks

        if tasks.queue_turn_clock not in services.TURN_STARTED_HOOKS:
            services.TURN_STARTED_HOOKS.append(tasks.queue_turn_clock)
