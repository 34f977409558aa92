"""What the public HTML pages share: paging and the links of the pager (site/pager.html)."""

from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.http import Http404, HttpRequest

PAGE_SIZE = 50


def page_of(request: HttpRequest, items, size: int = PAGE_SIZE, param: str = "page") -> Page:
    """The page of ``items`` that ``?page=`` (or ``param``) asks for (the last one if it is past the
    end); a page that is not a whole number from 1 is not found (404), never a server error."""
    raw = request.GET.get(param)
    if raw is not None and not (raw.isascii() and raw.isdigit() and len(raw) <= 9 and int(raw) >= 1):
        raise Http404("No such page.")
    return Paginator(items, size).get_page(raw)


def frame(request: HttpRequest) -> str:
    """The template a page extends: the whole site frame, or only the page's main part when
    ``?part=main`` asks for it (live.js fetches that on each update of the page's stream)."""
    return "site/part.html" if request.GET.get("part") == "main" else "site/base.html"


def _query(request: HttpRequest, **changes) -> str:
    params = request.GET.copy()
    for key, value in changes.items():
        params[key] = value
    return params.urlencode()


def pager_links(request: HttpRequest, page: Page, param: str = "page") -> dict[str, str | None]:
    """The query strings of the previous and next pages, keeping the other parameters."""
    return {
        "prev_query": _query(request, **{param: page.number - 1}) if page.has_previous() else None,
        "next_query": _query(request, **{param: page.number + 1}) if page.has_next() else None,
    }
