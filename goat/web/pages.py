"""What the public HTML pages share: paging and the links of the pager (site/pager.html)."""

from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.http import HttpRequest

PAGE_SIZE = 50


def page_of(request: HttpRequest, items) -> Page:
    """The page of ``items`` that ``?page=`` asks for (the last one if it is past the end)."""
    return Paginator(items, PAGE_SIZE).get_page(request.GET.get("page"))


def _query(request: HttpRequest, **changes) -> str:
    params = request.GET.copy()
    for key, value in changes.items():
        params[key] = value
    return params.urlencode()


def pager_links(request: HttpRequest, page: Page) -> dict[str, str | None]:
    """The query strings of the previous and next pages, keeping the other parameters."""
    return {
        "prev_query": _query(request, page=page.number - 1) if page.has_previous() else None,
        "next_query": _query(request, page=page.number + 1) if page.has_next() else None,
    }
