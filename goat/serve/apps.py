from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ServeConfig(AppConfig):
    """``manage.py run``: the whole service on one machine (its command lives in this app)."""

    name = "goat.serve"
    label = "serve"
    verbose_name = _("Running the service")
