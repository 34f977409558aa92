"""The engine is a pure library: importing it (and its command line) never imports Django."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "goat" / "engine"
FORBIDDEN = ("django", "rest_framework", "celery")


def test_importing_the_engine_loads_no_django():
    code = (
        "import sys, goat.engine, goat.engine.__main__\n"
        "bad = [m for m in sys.modules if m == 'django' or m.startswith('django.')]\n"
        "assert not bad, bad\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
            "import_module", "__import__"
        ):
            names.extend(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return names


def test_no_engine_module_imports_django():
    files = sorted(ENGINE.glob("*.py"))
    assert {f.name for f in files} >= {"__init__.py", "rules.py", "replay.py", "state.py"}
    offenders = {
        f.name: name
        for f in files
        for name in _imports(f)
        if name.split(".")[0] in FORBIDDEN or name.startswith("goat.") and not name.startswith("goat.engine")
    }
    assert not offenders, f"the engine must stay pure: {offenders}"


def test_the_scan_would_catch_a_django_import(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("import os\nfrom django.db import models\nimport importlib\nimportlib.import_module('django')\n")
    assert [n for n in _imports(sample) if n.split(".")[0] == "django"] == ["django.db", "django"]


def test_no_engine_module_pickles():
    """The state's form is its versioned JSON (json_form); nothing in the engine pickles."""
    offenders = {f.name for f in sorted(ENGINE.glob("*.py")) if {"pickle", "copyreg", "marshal"} & set(_imports(f))}
    assert not offenders, offenders
