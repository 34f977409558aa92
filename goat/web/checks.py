"""System checks for deployment settings (``python manage.py check [--deploy]``)."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Tags, Warning, register

W001 = Warning(
    "SECRET_KEY is not set and the database is not SQLite: every process uses the key generated "
    "into GOAT_DATA_DIR/secret_key, which processes on other machines do not share.",
    hint="Set SECRET_KEY (and GOAT_ENV=production) in the environment of every process.",
    id="goat.W001",
)


@register(Tags.security)
def check_secret_key_source(app_configs, **kwargs):
    engine = settings.DATABASES["default"]["ENGINE"]
    if not getattr(settings, "SECRET_KEY_FROM_ENV", True) and engine != "django.db.backends.sqlite3":
        return [W001]
    return []
