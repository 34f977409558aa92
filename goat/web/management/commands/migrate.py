"""``migrate`` under the migrations lock (goat.web.locks.migrations_lock): nodes started together
migrate once; the others wait for the lock, then find nothing to do (docs/operations.md "Scaling out")."""

from django.core.management.commands.migrate import Command as MigrateCommand

from goat.web.locks import migrations_lock


class Command(MigrateCommand):
    def handle(self, *args, **options):
        with migrations_lock(options["database"]):
            return super().handle(*args, **options)
