"""Tournament URLs: the API (included under /api/) and the public pages (included at the root)."""

from django.urls import path

from goat.web import converters  # noqa: F401 - registers <id:...>

from . import streams, views
from .api import schedules as schedule_api
from .api import views as api

api_urlpatterns = [
    path("tournaments/", api.TournamentListCreateView.as_view(), name="tournament-list"),
    path("tournaments/<id:tournament_id>/", api.TournamentDetailView.as_view(), name="tournament-detail"),
    path("tournaments/<id:tournament_id>/registration/", api.TournamentRegistrationView.as_view(),
         name="tournament-registration"),
    path("tournaments/<id:tournament_id>/standings/", api.TournamentStandingsView.as_view(),
         name="tournament-standings"),
    path("tournaments/<id:tournament_id>/stream/", streams.tournament_stream, name="tournament-stream"),
    path("tournaments/<id:tournament_id>/start/", api.TournamentStartView.as_view(), name="tournament-start"),
    path("tournaments/<id:tournament_id>/cancel/", api.TournamentCancelView.as_view(), name="tournament-cancel"),
    path("tournaments/<id:tournament_id>/withdraw/", api.TournamentWithdrawView.as_view(),
         name="tournament-withdraw"),
    path("tournaments/<id:tournament_id>/crosstable/", api.TournamentCrosstableView.as_view(),
         name="tournament-crosstable"),
    path("tournaments/<id:tournament_id>/results.csv", api.TournamentResultsCSVView.as_view(),
         name="tournament-results-csv"),
    path("tournament-schedules/", schedule_api.ScheduleListCreateView.as_view(), name="tournament-schedule-list"),
    path("tournament-schedules/<id:schedule_id>/", schedule_api.ScheduleDetailView.as_view(),
         name="tournament-schedule"),
    path("players/<str:username>/tournaments/", api.PlayerTournamentsView.as_view(), name="player-tournaments"),
]

page_urlpatterns = [
    path("tournaments/", views.tournament_list_page, name="page-tournaments"),
    path("tournaments/<id:tournament_id>/", views.tournament_page, name="page-tournament"),
]
