"""Player URLs (included under /api/)."""

from django.urls import path

from . import api

urlpatterns = [
    path("players/", api.PlayerSignupView.as_view(), name="player-signup"),
    path("players/me/", api.PlayerMeView.as_view(), name="player-me"),
    path("players/<str:username>/", api.PlayerDetailView.as_view(), name="player-detail"),
    path("auth/token/", api.TokenObtainView.as_view(), name="auth-token"),
]
