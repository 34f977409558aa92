"""URL configuration. Every /api/ URL answers JSON; unknown ones a problem+json 404."""

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from goat import problems
from goat.api import players
from goat.health import HealthView

api_patterns = [
    path("players/", players.PlayerSignupView.as_view(), name="player-signup"),
    path("players/me/", players.PlayerMeView.as_view(), name="player-me"),
    path("players/<str:username>/", players.PlayerDetailView.as_view(), name="player-detail"),
    path("auth/token/", players.TokenObtainView.as_view(), name="auth-token"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]

urlpatterns = [
    path("api/", include(api_patterns)),
    re_path(r"^api/", problems.api_not_found),
    path("health/", HealthView.as_view(), name="health"),
    path("admin/", admin.site.urls),
]

handler404 = "goat.problems.handler404"
handler500 = "goat.problems.handler500"
