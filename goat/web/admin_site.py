"""The admin site: Django's, with changelists that answer hostile query strings without a 500.

A changelist turns its query string into a database filter. Django already sends a lookup it cannot
build back to the bare list with ``?e=1`` (its "invalid lookup" page), but a value that only the
database refuses — an id or a year beyond 64 bits, a NUL byte on PostgreSQL — fails while the page is
being built, after that check. ``GoatAdminSite.admin_view`` renders every view it wraps (those of
every ModelAdmin registered on the site, Django's and other apps' included) inside its guard, and
answers such a failure of a GET with a query string the way Django answers a bad lookup.
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

logger = logging.getLogger(__name__)

#: what a value the database cannot take raises: SQLite's binding (OverflowError), PostgreSQL
#: (DataError: out of range, NUL in text), value conversion (ValueError)
REFUSED_VALUES = (OverflowError, DataError, ValueError)


class GoatAdminSite(admin.AdminSite):
    def admin_view(self, view, cacheable=False):
        inner = super().admin_view(view, cacheable)

        @wraps(inner)
        def guarded(request, *args, **kwargs):
            try:
                response = inner(request, *args, **kwargs)
                if isinstance(response, TemplateResponse):
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
