"""Game URLs (included under /api/)."""

from django.urls import path

from goat.web import converters  # noqa: F401 - registers <id:...>

from . import streams
from .api import views

urlpatterns = [
    path("games/", views.GameListCreateView.as_view(), name="game-list"),
    path("games/<id:game_id>/", views.GameDetailView.as_view(), name="game-detail"),
    path("games/<id:game_id>/join/", views.GameJoinView.as_view(), name="game-join"),
    path("games/<id:game_id>/moves/", views.GameMoveView.as_view(), name="game-moves"),
    path("games/<id:game_id>/leave/", views.GameLeaveView.as_view(), name="game-leave"),
    path("games/<id:game_id>/resign/", views.GameResignView.as_view(), name="game-resign"),
    path("games/<id:game_id>/events/", views.GameEventsView.as_view(), name="game-events"),
    path("games/<id:game_id>/scoresheet/", views.GameScoresheetView.as_view(), name="game-scoresheet"),
    path("games/<id:game_id>/replay/", views.GameReplayView.as_view(), name="game-replay"),
    path("games/<id:game_id>/verify/", views.GameVerifyView.as_view(), name="game-verify"),
    path("games/<id:game_id>/record/", views.GameRecordView.as_view(), name="game-record"),
    path("keys/", views.SigningKeysView.as_view(), name="signing-keys"),
    path("games/<id:game_id>/analysis/", views.GameAnalysisView.as_view(), name="game-analysis"),
    path("games/<id:game_id>/rematch/", views.GameRematchView.as_view(), name="game-rematch"),
    path("games/<id:game_id>/stream/", streams.game_stream, name="game-stream"),
    path("stream/", streams.player_stream, name="player-stream"),
    path("players/me/games/", views.MyGamesView.as_view(), name="player-games"),
]
