"""Ratings URLs: the API (included under /api/) and the leaderboard page (included at the root)."""

from django.urls import path

from . import api, views

api_urlpatterns = [
    path("players/<str:username>/ratings/", api.PlayerRatingsView.as_view(), name="player-ratings"),
    path("leaderboards/ratings/", api.RatingLeaderboardView.as_view(), name="leaderboard-ratings"),
    path("leaderboards/skill/", api.SkillLeaderboardView.as_view(), name="leaderboard-skill"),
]

page_urlpatterns = [
    path("leaderboards/", views.leaderboards_page, name="page-leaderboards"),
]
