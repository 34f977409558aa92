from django.apps import AppConfig


class PlayConfig(AppConfig):
    name = "play"
    label = "play"
    verbose_name = "Play"
