"""The public pages that gather several apps (docs/site.md). Thin: a selector, a template."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from . import selectors


def home_page(request: HttpRequest) -> HttpResponse:
    return render(request, "pages/home.html", selectors.home())
