"""``migrate`` under the migrations lock (goat.web.db.locks.migrations_lock): nodes started together
migrate once; the others wait for the lock, then find nothing to do (docs/operations.md "Scaling out").
A database that cannot be reached is one line saying so, not a traceback (``database_reached``)."""

from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as MigrateCommand
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections

from goat.web.db.locks import migrations_lock


def database_reached(alias: str = DEFAULT_DB_ALIAS) -> None:
    """Connect to ``alias`` now; a database that is down, missing or refuses us is a ``CommandError``
    naming what the driver said and where the address comes from (its message names the host, port
    and database, never the password)."""
    try:
        connections[alias].ensure_connection()
    except OperationalError as exc:
        reason = " ".join(str(exc).split())
        raise CommandError(f"the database could not be reached: {reason}\n"
                           "DATABASE_URL names it (docs/operations.md, \"Settings\").") from exc


class Command(MigrateCommand):
    def handle(self, *args, **options):
        database_reached(options["database"])
        with migrations_lock(options["database"]):
            return super().handle(*args, **options)
