"""Ratings URLs (included at the top of goat.urls' api_patterns)."""

from django.urls import path

from . import api

urlpatterns = [
    path("players/<str:username>/ratings/", api.PlayerRatingsView.as_view(), name="player-ratings"),
    path("leaderboards/ratings/", api.RatingLeaderboardView.as_view(), name="leaderboard-ratings"),
    path("leaderboards/skill/", api.SkillLeaderboardView.as_view(), name="leaderboard-skill"),
]
