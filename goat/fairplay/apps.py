from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FairPlayConfig(AppConfig):
    """Fair-play reports for staff (docs/fairplay.md): assistance and collusion, reviewed in the admin."""

    name = "goat.fairplay"
    label = "fairplay"
    verbose_name = _("Fair play")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from goat.fairplay import (
            errors,  # noqa: F401 (declares the fair-play error codes)
            tasks,  # noqa: F401 (registers the scan with the Celery app)
        )
