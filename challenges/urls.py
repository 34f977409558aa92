"""Challenge URLs: the API (included under /api/)."""

from django.urls import path

from goat.web import converters  # noqa: F401 - registers <id:...>

from . import streams
from .api import views

api_urlpatterns = [
    path("challenges/", views.ChallengeListCreateView.as_view(), name="challenge-list"),
    path("challenges/<id:challenge_id>/", views.ChallengeDetailView.as_view(), name="challenge-detail"),
    path("challenges/<id:challenge_id>/accept/", views.ChallengeAcceptView.as_view(), name="challenge-accept"),
    path("challenges/<id:challenge_id>/decline/", views.ChallengeDeclineView.as_view(), name="challenge-decline"),
    path("challenges/<id:challenge_id>/cancel/", views.ChallengeCancelView.as_view(), name="challenge-cancel"),
    path("bot/account/upgrade/", views.BotUpgradeView.as_view(), name="bot-upgrade"),
    path("bot/stream/events/", streams.bot_stream, name="bot-stream"),
]
