from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WebConfig(AppConfig):
    """HTTP plumbing shared by every app: problem details, parsing, paging, token auth,
    idempotency (its model), request logs, health and system checks. It imports no other app."""

    name = "goat.web"
    label = "web"
    verbose_name = _("HTTP plumbing")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from goat.web import (
            checks,  # noqa: F401 - registers the system checks
            errors,  # noqa: F401 - declares the API plumbing's error codes (WebError)
        )

        _create_data_folders()


def _create_data_folders() -> None:
    """The folders the settings name and the process needs: the static root (whitenoise serves it)
    and, on the embedded default's filesystem broker, its queue, processed and control folders."""
    from pathlib import Path

    from django.conf import settings

    folders = [Path(settings.STATIC_ROOT)]
    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})
    folders += [Path(options[key]) for key in ("data_folder_in", "data_folder_processed", "control_folder")
                if key in options]
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
