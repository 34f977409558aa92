"""Every CSV goat writes goes through one writer that defuses formula cells (goat/web/csvfiles.py, issue 35)."""

from __future__ import annotations

import csv
import io
import subprocess
from pathlib import Path

import pytest

from goat.web.csvfiles import csv_cell, csv_writer

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "=cmd|' /C calc'!A0"])
def test_a_text_that_begins_like_a_formula_gets_an_apostrophe(text):
    out = io.StringIO()
    csv_writer(out).writerow([text, "plain", 7, -3])
    assert next(csv.reader(io.StringIO(out.getvalue()))) == ["'" + text, "plain", "7", "-3"]


def test_numbers_and_plain_texts_are_written_as_they_are():
    assert [csv_cell(v) for v in (-10, 0, 2.5, "alice", "a=b", "", None)] == [-10, 0, 2.5, "alice", "a=b", "", None]


def test_no_module_writes_csv_but_through_the_helper():
    found = subprocess.run(["git", "grep", "-n", "-E", r"csv\.(writer|DictWriter)\(", "--", "*.py",
                            ":!tests", ":!goat/web/csvfiles.py"], cwd=REPO, capture_output=True, text=True)
    assert found.stdout == ""
