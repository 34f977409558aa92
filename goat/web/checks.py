"""System checks for deployment settings (``python manage.py check [--deploy]``)."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

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


def _networks(setting: str, example: str, check_id: str) -> list[Error]:
    """An error for each entry of the ``setting`` list that is not an IP address or network."""
    import ipaddress

    errors = []
    for item in getattr(settings, setting, ()):
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            errors.append(Error(f"{setting}: {item!r} is not an IP address or network.",
                                hint=f"Write addresses or CIDR networks, comma-separated, e.g. {example}.",
                                id=check_id))
    return errors


@register(Tags.security)
def check_trusted_proxies(app_configs, **kwargs):
    """GOAT_TRUSTED_PROXIES must be addresses or networks (goat.web.api.throttling)."""
    return _networks("GOAT_TRUSTED_PROXIES", "10.0.0.5,172.18.0.0/16", "goat.E001")


@register(Tags.security)
def check_metrics_allow(app_configs, **kwargs):
    """GOAT_METRICS_ALLOW must be addresses or networks (goat.web.observe.metrics)."""
    return _networks("GOAT_METRICS_ALLOW", "127.0.0.1,10.0.0.0/8", "goat.E002")
