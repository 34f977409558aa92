from django.apps import AppConfig


class PlayersConfig(AppConfig):
    """Players: sign-up, tokens and profiles (the accounts are Django's auth users)."""

    name = "goat.players"
    label = "players"
    verbose_name = "Players"
    default_auto_field = "django.db.models.BigAutoField"
