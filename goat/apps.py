from django.apps import AppConfig


class GoatConfig(AppConfig):
    name = "goat"
    label = "goat"
    verbose_name = "Goat games"
    default_auto_field = "django.db.models.BigAutoField"
