"""Every CSV file goat writes goes through ``csv_writer``: a ``csv.writer`` whose text cells cannot be
read as a formula by a spreadsheet (CSV injection, OWASP). A text cell that begins with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return gets a leading apostrophe, which spreadsheets show as text and
do not display; numbers are written as they are (``-10`` stays a number)."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any

#: what a spreadsheet reads as the start of a formula (or, tab and CR, of a cell it then re-reads)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell: a text that begins like a formula, behind an apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class FormulaSafeWriter:
    """``csv.writer(file)`` whose rows go through ``csv_cell``."""

    def __init__(self, file) -> None:
        self._writer = csv.writer(file)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([csv_cell(value) for value in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def csv_writer(file) -> FormulaSafeWriter:
    """The writer of every CSV file goat writes (the admin's scoresheet, a tournament's results.csv)."""
    return FormulaSafeWriter(file)
