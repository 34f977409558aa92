"""URL configuration. Every /api/ URL answers JSON; unknown ones a problem+json 404."""

from django.contrib import admin
from django.urls import include, path, re_path, register_converter
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from goat import problems
from goat.api import games, players
from goat.health import HealthView
from tournaments.urls import api_urlpatterns as tournaments_api, page_urlpatterns as tournaments_pages


class GameIdConverter:
    """A game id: digits that fit a 64-bit primary key (longer ones are simply not found)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(GameIdConverter, "game_id")

api_patterns = [
    path("", include("ratings.urls")),  # players/<username>/ratings/, leaderboards/
    path("players/", players.PlayerSignupView.as_view(), name="player-signup"),
    path("players/me/", players.PlayerMeView.as_view(), name="player-me"),
    path("players/<str:username>/", players.PlayerDetailView.as_view(), name="player-detail"),
    path("auth/token/", players.TokenObtainView.as_view(), name="auth-token"),
    path("games/", games.GameListCreateView.as_view(), name="game-list"),
    path("games/<game_id:game_id>/", games.GameDetailView.as_view(), name="game-detail"),
    path("games/<game_id:game_id>/join/", games.GameJoinView.as_view(), name="game-join"),
    path("games/<game_id:game_id>/moves/", games.GameMoveView.as_view(), name="game-moves"),
    path("games/<game_id:game_id>/resign/", games.GameResignView.as_view(), name="game-resign"),
    path("games/<game_id:game_id>/events/", games.GameEventsView.as_view(), name="game-events"),
    path("games/<game_id:game_id>/scoresheet/", games.GameScoresheetView.as_view(), name="game-scoresheet"),
    path("games/<game_id:game_id>/replay/", games.GameReplayView.as_view(), name="game-replay"),
    path("games/<game_id:game_id>/verify/", games.GameVerifyView.as_view(), name="game-verify"),
    path("", include(tournaments_api)),  # tournaments/, tournaments/<id>/{registration,standings}/
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]

urlpatterns = [
    path("api/", include(api_patterns)),
    re_path(r"^api/", problems.api_not_found),
    path("health/", HealthView.as_view(), name="health"),
    path("admin/", admin.site.urls),
    path("", include(tournaments_pages)),  # public pages: leaderboards/, tournaments/, tournaments/<id>/
]

handler404 = "goat.problems.handler404"
handler500 = "goat.problems.handler500"
