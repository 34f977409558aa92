"""The Russian rating chart as Chromium draws it (docs/site.md "Principles": machine numbers
are never localised). A coordinate written "154,0" is no length to a browser: it draws the dot at 0.
The player page is rendered in Russian by the application and opened as a file, so no server is
needed; the chart is a self-contained SVG."""

from __future__ import annotations

import factories
import pytest
from django.test import Client

pytestmark = pytest.mark.browser


@pytest.mark.django_db
def test_the_russian_rating_chart_draws_its_dots_where_the_numbers_say(open_browser, tmp_path):
    ann, ben = factories.make_players("ann", "ben")
    for seed in range(3):
        factories.finished_game([ann, ben], options=dict(factories.FAST), seed=seed)
    html = Client(HTTP_ACCEPT_LANGUAGE="ru").get("/players/ben/").content.decode()
    assert '<html lang="ru">' in html and 'class="rating-chart"' in html
    page = tmp_path / "player.html"
    page.write_text(html, encoding="utf-8")
    browser = open_browser("1280,1000")
    browser.get(page.as_uri())
    drawn = browser.execute_script("""
        const chart = document.querySelector("svg.rating-chart");
        return {
          dots: Array.from(chart.querySelectorAll("circle.dot"), c => [c.cx.baseVal.value, c.cy.baseVal.value]),
          written: Array.from(chart.querySelectorAll("circle.dot"), c => [c.getAttribute("cx"), c.getAttribute("cy")]),
          grid: Array.from(chart.querySelectorAll("line.grid"), l => l.y1.baseVal.value),
          line: chart.querySelector("polyline.line").points.numberOfItems,
        };""")
    assert len(drawn["dots"]) >= 2
    # every dot stands where its attributes say, inside the plot (the left margin is 48, the top 12)
    written = [value for x, y in drawn["written"] for value in (float(x), float(y))]  # "154,0" would not parse
    assert written == pytest.approx([value for dot in drawn["dots"] for value in dot], abs=0.05)
    assert all(x >= 48 and y >= 12 for x, y in drawn["dots"])
    assert len({x for x, _ in drawn["dots"]}) == len(drawn["dots"])  # spread left to right
    assert all(y >= 12 for y in drawn["grid"]) and drawn["line"] == len(drawn["dots"]) + 1
