"""goat's fixed SQL texts, sent one way on each database, and model instances built from their rows:
the token lookup (goat.web.api.auth) and the event store's statements (goat.games.eventstore).

Compiling a queryset costs the web process more CPU than the query itself costs to send through the
cursor (docs/performance.md has the figures), so the statements every request or move runs are
fixed texts.

``fetch`` is the whole difference between the databases: on PostgreSQL a text goes over
``fixed_cursor`` (prepared once per connection), elsewhere over Django's cursor. Rows become values
with each column's own converters, the backend's and then the field's (``converters``: what the
ORM's compiler applies, so SQLite's dates and booleans come out as the ORM gives them), and
``RowModel`` builds instances the way the ORM does (``Model.from_db``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Model

Converter = tuple[int, Callable[..., Any], Any]


def postgresql() -> bool:
    return connection.vendor == "postgresql"


def fetch(sql: str, params: Sequence[Any], *, binary: bool = False, using: str | None = None) -> list[tuple]:
    """The rows of one fixed SQL text (a SELECT, or a statement with ``RETURNING``); ``binary``: rows
    in PostgreSQL's binary format (numbers and timestamps through psycopg's C loaders); ``using``: the
    database alias (a read's ``router.db_for_read``; None: the primary)."""
    conn = connections[using or DEFAULT_DB_ALIAS]
    if conn.vendor == "postgresql":
        with fixed_cursor(using) as cursor:
            cursor.execute(sql, params, prepare=True, binary=binary)
            return cursor.fetchall()
    with conn.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def converters(model: type[Model], names: Sequence[str]) -> list[Converter]:
    """``(index, converter, expression)`` of the columns ``names`` of ``model``, as the ORM applies them."""
    out = []
    for i, name in enumerate(names):
        col = model._meta.get_field(name).get_col(model._meta.db_table)
        for convert in [*connection.ops.get_db_converters(col), *col.get_db_converters(connection)]:
            out.append((i, convert, col))
    return out


def convert(values: list[Any], steps: Sequence[Converter]) -> list[Any]:
    """``values`` (a row as a list) with ``steps`` (from ``converters``) applied in place."""
    for i, converter, col in steps:
        values[i] = converter(values[i], col, connection)
    return values


class RowModel:
    """The concrete columns of ``model`` as a select list (``columns``), and ``load(row)`` to build one
    (for the database of the connection it was made on)."""

    def __init__(self, model: type[Model], alias: str):
        fields = model._meta.concrete_fields
        quote = connection.ops.quote_name
        self.model = model
        self.width = len(fields)
        self.columns = ", ".join(f"{alias}.{quote(f.column)}" for f in fields)
        self.names = [f.attname for f in fields]
        self.converters = converters(model, self.names)

    def load(self, row: Sequence[Any], start: int = 0) -> Model:
        values = convert(list(row[start:start + self.width]), self.converters)
        return self.model.from_db(connection.alias, self.names, values)


@contextmanager
def fixed_cursor(using: str | None = None) -> Iterator[psycopg.Cursor]:
    """A psycopg cursor for goat's fixed SQL texts on PostgreSQL (the token lookup, the event store's
    game load, append and stream load), with what Django's cursor would have done around it.

    Server-side binding: the parameters travel apart from the text, which stays constant, so callers
    pass ``prepare=True`` and psycopg prepares each text once per connection. That is, when prepared
    statements are on (``DB_PREPARED_STATEMENTS``, settings.py: psycopg's ``prepare_threshold``, which
    Django leaves off for transaction-mode poolers); off, ``prepare=True`` is ignored. Planning is a
    large share of a move's database CPU (docs/performance.md).

    As Django's cursor: the connection's health check before its first query of a request, a
    transaction marked for rollback refused, errors raised as Django's. The statements are not in
    Django's SQL log (``connection.queries``).
    """
    conn = connections[using or DEFAULT_DB_ALIAS]
    conn.validate_no_broken_transaction()
    conn.close_if_health_check_failed()
    conn.ensure_connection()
    with conn.wrap_database_errors, psycopg.Cursor(conn.connection) as cursor:
        yield cursor
