"""IdempotencyRecord moved to the web app (goat.web). Its table keeps its name
(goat_idempotencyrecord), so only the migration state moves: no SQL runs."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("goat", "0004_drop_redundant_indexes"),
        ("web", "0001_idempotencyrecord_from_goat"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="IdempotencyRecord")],
            database_operations=[],
        ),
    ]
