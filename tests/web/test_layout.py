"""The layout of docs/architecture.md holds: dependencies point one way. (A database migrated by the
earlier layout, before goat.web had its own app, migrates on without losing a row:
tests/games/test_older_databases.py.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: package -> packages it must never import (at module or function level)
FORBIDDEN = {
    "goat/engine": ("django", "goat.web", "goat.games", "goat.players", "ratings", "challenges", "tournaments", "pages",
                    "play"),
    "goat/web": ("goat.engine", "goat.live", "goat.serve", "goat.games", "goat.players", "ratings", "challenges",
                 "tournaments", "pages", "play"),
    # live delivery: above the HTTP plumbing, below every app that publishes or streams
    "goat/live": ("goat.engine", "goat.serve", "goat.games", "goat.players", "ratings", "challenges", "tournaments",
                  "pages", "play"),
    # running the service: starts the processes, knows none of the apps they serve
    "goat/serve": ("goat.engine", "goat.games", "goat.players", "ratings", "challenges", "tournaments", "pages",
                   "play"),
    "goat/players": ("goat.games", "ratings", "challenges", "tournaments", "pages", "play"),
    "goat/games": ("ratings", "challenges", "tournaments", "pages", "play"),
    "ratings": ("challenges", "tournaments", "pages", "play"),
    # challenges: above the games (it starts them through their services), beside ratings
    "challenges": ("ratings", "tournaments", "pages", "play"),
    "tournaments": ("pages", "play"),  # the site's pages that gather every app: imported by nothing
    "pages": ("play",),  # siblings: they link to each other by URL name, never by import
    "play": ("pages",),
}


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_imports_nothing_above_it(package):
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for lineno, name in _imports(path):
            if any(name == banned or name.startswith(banned + ".") for banned in FORBIDDEN[package]):
                found.append(f"{path.relative_to(ROOT)}:{lineno} imports {name}")
    assert found == []


#: the floors inside goat/games, lowest first: a module imports only from its floor and the ones below
#: (docs/architecture.md "Inside goat/games"); a module not listed is a test failure, so a new one is placed
GAMES_FLOORS = [
    {"words", "errors", "access", "signals", "signing", "rules_texts", "shapes", "models"},
    {"eventstore", "verification", "captions", "viewer"},
    {"selectors", "projections", "audit", "gauges", "filters"},
    {"notify"},
    {"services"},
    {"analysis", "records", "computer", "table", "problems"},
    {"streams", "tasks", "audit_tasks"},
    {"api", "api.examples", "api.serializers", "api.stream_schema", "api.schema", "api.views", "admin", "urls",
     "apps", "templatetags", "templatetags.site_words", "templatetags.table_words", "management"},
]


def _games_module(path: Path) -> str:
    parts = path.relative_to(ROOT / "goat" / "games").with_suffix("").parts
    if parts[0] == "management":
        return "management"
    return ".".join(part for part in parts if part != "__init__") or "__init__"


def _games_imported(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module in ("goat.games", "goat.games.api"):
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                names = [node.module]
        for name in names:
            if name.startswith("goat.games."):
                yield node.lineno, name.removeprefix("goat.games.")


def test_inside_goat_games_imports_point_down():
    floor = {module: number for number, modules in enumerate(GAMES_FLOORS) for module in modules}
    found = []
    for path in sorted((ROOT / "goat" / "games").rglob("*.py")):
        if "migrations" in path.parts:
            continue
        module = _games_module(path)
        if module == "__init__":
            continue
        assert module in floor, f"goat/games/{module}: place it on a floor of GAMES_FLOORS"
        for lineno, name in _games_imported(path):
            target = name if name in floor else name.split(".")[0]
            if target in floor and floor[target] > floor[module]:
                found.append(f"{path.relative_to(ROOT)}:{lineno} imports {name}, a floor above")
    assert found == []


def test_the_project_package_holds_only_wiring_beside_its_subpackages():
    modules = {p.name for p in (ROOT / "goat").glob("*.py")}
    assert modules == {"__init__.py", "settings.py", "urls.py", "celery.py", "asgi.py", "wsgi.py"}
    packages = {p.name for p in (ROOT / "goat").iterdir() if (p / "__init__.py").exists()}
    assert packages == {"engine", "fairplay", "games", "live", "players", "serve", "web"}
