"""The public pages of this app (included at the root): /, /players/{username}/, /games/{id}/, /rules/
and /rules/{ruleset}/."""

from django.urls import path

from goat.web import converters  # noqa: F401 - registers <id:...>

from . import views

urlpatterns = [
    path("", views.home_page, name="page-home"),
    # path: any stored name reverses (the API allows no "/" in one, an account made by hand may)
    path("players/<path:username>/", views.player_page, name="page-player"),
    path("games/<id:game_id>/", views.game_page, name="page-game"),
    path("games/<id:game_id>/analysis/", views.game_analysis_request, name="page-game-analysis"),
    path("games/<id:game_id>/events.json", views.game_events_download, name="page-game-events"),
    path("rules/", views.rules_index_page, name="page-rules-index"),
    path("rules/<slug:ruleset>/", views.rules_page, name="page-rules"),
]
