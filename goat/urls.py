"""URL configuration. Every /api/ URL answers JSON; unknown ones a problem+json 404."""

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from challenges.urls import api_urlpatterns as challenges_api
from goat.web.api import problems
from goat.web.api.throttling import pages_limited
from goat.web.observe.health import HealthView
from goat.web.observe.metrics_http import metrics_view
from pages import urls as pages_urls
from ratings.urls import api_urlpatterns as ratings_api
from ratings.urls import page_urlpatterns as ratings_pages
from tournaments.urls import api_urlpatterns as tournaments_api
from tournaments.urls import page_urlpatterns as tournaments_pages

api_patterns = [
    path("", include(ratings_api)),  # players/<username>/ratings/, leaderboards/ (before players/<username>/)
    path("", include("goat.players.urls")),  # players/, players/me/, players/<username>/, auth/token/
    path("", include("goat.games.urls")),  # games/ and games/<id>/...
    path("", include(challenges_api)),  # challenges/ and challenges/<id>/{accept,decline,cancel}/
    path("", include(tournaments_api)),  # tournaments/, tournaments/<id>/{registration,standings}/
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI with its script served as a file (the split view), so the Content-Security-Policy keeps
    # script-src 'self'; its page carries an inline <style>, allowed on this page only.
    path("docs/", csp_update({"style-src": [UNSAFE_INLINE]})(SpectacularSwaggerSplitView.as_view(url_name="schema")),
         name="docs"),
]

urlpatterns = [
    path("api/", include(api_patterns)),
    re_path(r"^api/", problems.api_not_found),
    path("health/", HealthView.as_view(), name="health"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
    # The language switch of every page: POST language (and next) to /i18n/setlang/ (Django's set_language).
    path("i18n/", include("django.conf.urls.i18n")),
    # the public pages, each under the ``pages`` rate per client address (goat.web.api.throttling.page_limited)
    path("", include(pages_limited(ratings_pages))),  # leaderboards/
    path("", include(pages_limited(tournaments_pages))),  # tournaments/, tournaments/<id>/
    path("", include(pages_limited(pages_urls.urlpatterns))),  # /, players/<username>/, games/<id>/, rules/
    path("", include("play.urls")),  # the play page: play/, play/<id>/, play/sign{in,up,out}/
]

handler400 = "goat.web.api.problems.handler400"
handler404 = "goat.web.api.problems.handler404"
handler500 = "goat.web.api.problems.handler500"
