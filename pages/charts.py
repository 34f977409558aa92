"""The rating-history chart of the player page: geometry for a small SVG drawn by a template
(pages/_rating_chart.html) on the server, so the chart is there without JavaScript and under the
Content-Security-Policy (presentation attributes and the site's stylesheet, no inline style)."""

from __future__ import annotations

from typing import Any

WIDTH, HEIGHT = 560, 180
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 26


def rating_chart(points: list[dict[str, Any]]) -> dict[str, Any]:
    """``points``: the rating after each game, oldest first (``ratings.selectors.rating_history``).
    The line starts at the rating before the first of them; games are evenly spaced left to right
    (the first and last dates are written under the axis)."""
    start = points[0]["rating"] - points[0]["points"]
    values = [start] + [p["rating"] for p in points]
    low, high = min(values), max(values)
    span = (high - low) or 1
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return round(LEFT + inner_w * i / max(len(values) - 1, 1), 1)

    def y(v: int) -> float:
        return round(TOP + inner_h * (1 - (v - low) / span), 1)

    dots = [{"x": x(i + 1), "y": y(p["rating"]), "rating": p["rating"], "points": p["points"], "at": p["at"],
             "game": p["game"]} for i, p in enumerate(points)]
    grid = sorted({low, (low + high) // 2, high})
    return {
        "width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT, "bottom": HEIGHT - BOTTOM,
        "line": " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(values)),
        "dots": dots, "grid": [{"y": y(v), "label": v} for v in grid],
        "first": points[0]["at"], "last": points[-1]["at"], "start": start, "end": values[-1], "games": len(points),
        "label_y": HEIGHT - 8,
    }
