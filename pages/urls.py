"""The public pages of this app (included at the root): /, /players/{username}/, /games/{id}/."""

from django.urls import path

from goat.web import converters  # noqa: F401 - registers <id:...>

from . import views

urlpatterns = [
    path("", views.home_page, name="page-home"),
]
