"""Tournament URLs: the API (included under /api/) and the public pages (included at the root)."""

from django.urls import path, register_converter

from . import api, pages


class TournamentIdConverter:
    """A tournament id: digits that fit a 64-bit primary key (longer ones are simply not found)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(TournamentIdConverter, "tournament_id")

api_urlpatterns = [
    path("tournaments/", api.TournamentListCreateView.as_view(), name="tournament-list"),
    path("tournaments/<tournament_id:tournament_id>/", api.TournamentDetailView.as_view(), name="tournament-detail"),
    path("tournaments/<tournament_id:tournament_id>/registration/", api.TournamentRegistrationView.as_view(),
         name="tournament-registration"),
    path("tournaments/<tournament_id:tournament_id>/standings/", api.TournamentStandingsView.as_view(),
         name="tournament-standings"),
]

page_urlpatterns = [
    path("leaderboards/", pages.leaderboards_page, name="page-leaderboards"),
    path("tournaments/", pages.tournament_list_page, name="page-tournaments"),
    path("tournaments/<tournament_id:tournament_id>/", pages.tournament_page, name="page-tournament"),
]
