"""The admin site: Django's, with changelists that answer hostile query strings without a 500.

A changelist turns its query string into a database filter. Django already sends a lookup it cannot
build back to the bare list with ``?e=1`` (its "invalid lookup" page), but a value that only the
database refuses — an id or a year beyond 64 bits, a NUL byte on PostgreSQL — fails while the page is
being built, after that check. ``GoatAdminSite.admin_view`` renders every view it wraps (those of
every ModelAdmin registered on the site, Django's and other apps' included) inside its guard, and
answers such a failure of a GET with a query string the way Django answers a bad lookup.

The site names itself goat, not Django, and names each model in the case a sentence needs: Django
builds "Select %s to change", "Add %s" and "13 партии" from the model's one ``verbose_name``, which
Russian declines ("Выберите партию", "13 партий"). ``NOUNS`` holds, per model the admin shows, the
name to select or add (accusative in Russian) and its count in plural forms; a page's title and count
use them (the count and the add button through goat/web/templates/django_admin/).
"""

from __future__ import annotations

import logging
from functools import wraps

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.contrib.admin.views.main import ERROR_FLAG
from django.db import DataError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext, gettext_lazy, gettext_noop, npgettext_lazy, pgettext_lazy

from goat.web.words import humanised

logger = logging.getLogger(__name__)

#: what a value the database cannot take raises: SQLite's binding (OverflowError), PostgreSQL
#: (DataError: out of range, NUL in text), value conversion (ValueError)
REFUSED_VALUES = (OverflowError, DataError, ValueError)


#: per model (``app_label.model_name``): the name a title selects or adds, and the count of a list
NOUNS = {
    "goat.game": (
        pgettext_lazy("admin object", "game"),
        npgettext_lazy("admin count", "%(count)s game", "%(count)s games", "count")),
    "goat.gameevent": (
        pgettext_lazy("admin object", "game event"),
        npgettext_lazy("admin count", "%(count)s game event", "%(count)s game events", "count")),
    "goat.hiddeninfoview": (
        pgettext_lazy("admin object", "hidden information view"),
        npgettext_lazy("admin count", "%(count)s hidden information view", "%(count)s hidden information views",
                       "count")),
    "ratings.ratingentry": (
        pgettext_lazy("admin object", "rating ledger entry"),
        npgettext_lazy("admin count", "%(count)s rating ledger entry", "%(count)s rating ledger entries", "count")),
    "ratings.chipaccount": (
        pgettext_lazy("admin object", "chip account"),
        npgettext_lazy("admin count", "%(count)s chip account", "%(count)s chip accounts", "count")),
    "ratings.chipledgerentry": (
        pgettext_lazy("admin object", "chip ledger entry"),
        npgettext_lazy("admin count", "%(count)s chip ledger entry", "%(count)s chip ledger entries", "count")),
    "ratings.skillrating": (
        pgettext_lazy("admin object", "skill rating"),
        npgettext_lazy("admin count", "%(count)s skill rating", "%(count)s skill ratings", "count")),
    "ratings.gameskillchange": (
        pgettext_lazy("admin object", "game skill change"),
        npgettext_lazy("admin count", "%(count)s game skill change", "%(count)s game skill changes", "count")),
    "ratings.leaderboardrow": (
        pgettext_lazy("admin object", "leaderboard row"),
        npgettext_lazy("admin count", "%(count)s leaderboard row", "%(count)s leaderboard rows", "count")),
    "tournaments.tournament": (
        pgettext_lazy("admin object", "tournament"),
        npgettext_lazy("admin count", "%(count)s tournament", "%(count)s tournaments", "count")),
    "tournaments.tournamentschedule": (
        pgettext_lazy("admin object", "tournament schedule"),
        npgettext_lazy("admin count", "%(count)s tournament schedule", "%(count)s tournament schedules", "count")),
    "fairplay.fairplayreport": (
        pgettext_lazy("admin object", "fair-play report"),
        npgettext_lazy("admin count", "%(count)s fair-play report", "%(count)s fair-play reports", "count")),
    "fairplay.fairplayreview": (
        pgettext_lazy("admin object", "fair-play review"),
        npgettext_lazy("admin count", "%(count)s fair-play review", "%(count)s fair-play reviews", "count")),
    "auth.user": (
        pgettext_lazy("admin object", "user"),
        npgettext_lazy("admin count", "%(count)s user", "%(count)s users", "count")),
    "auth.group": (
        pgettext_lazy("admin object", "group"),
        npgettext_lazy("admin count", "%(count)s group", "%(count)s groups", "count")),
    "authtoken.tokenproxy": (
        pgettext_lazy("admin object", "token"),
        npgettext_lazy("admin count", "%(count)s token", "%(count)s tokens", "count")),
    "axes.accessattempt": (
        pgettext_lazy("admin object", "access attempt"),
        npgettext_lazy("admin count", "%(count)s access attempt", "%(count)s access attempts", "count")),
    "axes.accesslog": (
        pgettext_lazy("admin object", "access log entry"),
        npgettext_lazy("admin count", "%(count)s access log entry", "%(count)s access log entries", "count")),
    "axes.accessfailurelog": (
        pgettext_lazy("admin object", "access failure"),
        npgettext_lazy("admin count", "%(count)s access failure", "%(count)s access failures", "count")),
}

#: Django's own admin messages that put a model's name before a past-tense verb: its Russian («… был
#: успешно изменен») guesses a gender the name may not have (расписание, партия). goat's catalog says them
#: without one; it comes from LOCALE_PATHS, which Django reads before its own catalogs.
DJANGO_MESSAGES = (
    gettext_noop("The {name} “{obj}” was added successfully."),
    gettext_noop("The {name} “{obj}” was added successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may edit it again below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may add another {name} below."),
    gettext_noop("The %(name)s “%(obj)s” was deleted successfully."),
)

#: Django's titles that name the model (django.contrib.admin.options, .views.main)
TITLES = ("Select %s to change", "Select %s to view", "Select %s", "Add %s", "Change %s", "View %s")


def name_cases(response: TemplateResponse) -> None:
    """Give an admin page's title, add button and count the model's name in the right case (``NOUNS``)."""
    context = response.context_data or {}
    opts = context.get("opts")
    nouns = NOUNS.get(getattr(opts, "label_lower", ""))
    if nouns is None:
        return
    accusative, counted = nouns
    context["accusative"] = accusative
    for title in TITLES:
        if context.get("title") == gettext(title) % opts.verbose_name:
            context["title"] = gettext(title) % accusative
            break
    changelist = context.get("cl")
    if changelist is not None:  # the count is drawn by an inclusion tag that is given only the changelist
        changelist.counted = counted % {"count": changelist.result_count}


class GoatAdminSite(admin.AdminSite):
    site_header = gettext_lazy("Goat administration")
    site_title = gettext_lazy("Goat administration")

    def admin_view(self, view, cacheable=False):
        inner = super().admin_view(view, cacheable)

        @wraps(inner)
        def guarded(request, *args, **kwargs):
            try:
                response = inner(request, *args, **kwargs)
                if isinstance(response, TemplateResponse):
                    name_cases(response)
                    response.render()  # the changelist's queries run while its template renders
                return response
            except REFUSED_VALUES as error:
                if request.method != "GET" or not request.GET or ERROR_FLAG in request.GET:
                    raise
                logger.warning("admin %s: query %r refused by the database: %s", request.path,
                               request.META.get("QUERY_STRING", "")[:500], error)
                return HttpResponseRedirect(f"{request.path}?{ERROR_FLAG}=1")

        return guarded


class GoatAdminConfig(AdminConfig):
    """``django.contrib.admin`` with ``GoatAdminSite`` as ``admin.site``."""

    default_site = "goat.web.admin_site.GoatAdminSite"


def coded_column(field: str, words: dict, description):
    """A list column showing a stored code (``field``) by its word in ``words`` (goat.web.words),
    humanised when it has none; sorted by the code. Usable in ``list_display`` and, set as a ModelAdmin's
    attribute, by its name in ``fields``."""

    @admin.display(description=description, ordering=field)
    def column(*args) -> str:  # (obj) as a function, (model_admin, obj) as a ModelAdmin's method
        value = getattr(args[-1], field)
        label = words.get(value)
        return str(label) if label is not None else humanised(value)

    column.__name__ = f"{field}_words"
    return column


def coded_filter(field: str, words: dict, title) -> type[admin.SimpleListFilter]:
    """A list filter on a stored code (``field``) offering each known value by its word."""

    class CodedFilter(admin.SimpleListFilter):
        parameter_name = field

        def lookups(self, request, model_admin):
            return list(words.items())

        def queryset(self, request, queryset):
            return queryset.filter(**{field: self.value()}) if self.value() else queryset

    CodedFilter.title = title
    CodedFilter.__name__ = CodedFilter.__qualname__ = f"{field.title()}Filter"
    return CodedFilter

