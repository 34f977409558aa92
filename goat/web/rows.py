"""Model instances from a fixed SQL text (the token lookup, goat.web.auth), and the cursor that sends
goat's fixed SQL texts on PostgreSQL (that lookup, and the event store's statements).

Compiling a queryset costs more CPU than the query itself: measured per call on PostgreSQL, the
token lookup ``Token.objects.select_related("user").get(key=...)`` took ~400 µs of the web process's
CPU, and the first edition's move lock ``select_for_update().annotate(<seat subquery>).get(pk=...)``
~800 µs, against ~30-60 µs to send the same SQL through the cursor. ``RowModel`` writes a model's column list once
and builds instances the way the ORM does (``Model.from_db`` after each field's ``from_db_value``).

PostgreSQL only: its backend adds no converters of its own (SQLite's does, for dates, decimals and
booleans), so the fields' converters are the whole job. On other databases callers use the ORM.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from django.db import connection
from django.db.models import Model


class RowModel:
    """The concrete columns of ``model`` as a select list (``columns``), and ``load(row)`` to build one."""

    def __init__(self, model: type[Model], alias: str):
        fields = model._meta.concrete_fields
        quote = connection.ops.quote_name
        self.model = model
        self.width = len(fields)
        self.columns = ", ".join(f"{alias}.{quote(f.column)}" for f in fields)
        self.names = [f.attname for f in fields]
        self.converters = [(i, f.from_db_value) for i, f in enumerate(fields) if hasattr(f, "from_db_value")]

    def load(self, row: Sequence[Any], start: int = 0) -> Model:
        values = list(row[start:start + self.width])
        for i, convert in self.converters:
            values[i] = convert(values[i], None, connection)
        return self.model.from_db(connection.alias, self.names, values)


def postgresql() -> bool:
    return connection.vendor == "postgresql"


@contextmanager
def fixed_cursor() -> Iterator[psycopg.Cursor]:
    """A psycopg cursor for goat's fixed SQL texts on PostgreSQL (the token lookup, the event store's
    game load, append and stream load), with what Django's cursor would have done around it.

    Server-side binding: the parameters travel apart from the text, which stays constant, so callers
    pass ``prepare=True`` and psycopg prepares each text once per connection. That is, when prepared
    statements are on (``DB_PREPARED_STATEMENTS``, settings.py: psycopg's ``prepare_threshold``, which
    Django leaves off for transaction-mode poolers); off, ``prepare=True`` is ignored. Measured on a move:
    planning its statements was ~40% of PostgreSQL's CPU (docs/performance.md).

    As Django's cursor: the connection's health check before its first query of a request, a
    transaction marked for rollback refused, errors raised as Django's. The statements are not in
    Django's SQL log (``connection.queries``).
    """
    connection.validate_no_broken_transaction()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        yield cursor
