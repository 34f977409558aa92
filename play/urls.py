"""The play page's URLs (included at the root): /play/, a table at /play/{id}/, sign-in, sign-up, sign-out."""

from django.urls import path

from goat.web import converters  # noqa: F401 - registers <id:...>

from . import views

urlpatterns = [
    path("play/", views.play_page, name="page-play"),
    path("play/<id:game_id>/", views.play_page, name="page-play-table"),
    path("play/<id:game_id>/table/", views.play_table, name="play-table-model"),
    path("play/c/<str:code>/", views.challenge_link, name="play-challenge-link"),
    path("play/signin/", views.signin, name="play-signin"),
    path("play/signup/", views.signup, name="play-signup"),
    path("play/signout/", views.signout, name="play-signout"),
    path("play/settings/", views.settings_save, name="play-settings"),
]
