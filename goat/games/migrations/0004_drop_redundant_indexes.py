# Drop the indexes that another index already covers (a move rewrites the game row and inserts events,
# and every index on them is one more write per move):
#   goat_game (status), its varchar_pattern_ops twin and (deadline): game_clock_idx (status, deadline)
#   goat_gameevent (game_id): event_seq_unique_per_game (game_id, seq)
#   goat_seat (game_id): seat_unique_per_game (game_id, seat)
# Only the indexes are dropped (Django's AlterField would also drop and re-add, and so re-validate, the
# foreign keys, a scan of the events table under lock).

import django.db.models.deletion
from django.db import migrations, models

INDEXES = [  # (table, index, column, operator class: PostgreSQL only)
    ("goat_game", "goat_game_deadline_fdb7d98e", "deadline", ""),
    ("goat_game", "goat_game_status_e32e92a0", "status", ""),
    ("goat_game", "goat_game_status_e32e92a0_like", "status", "varchar_pattern_ops"),
    ("goat_gameevent", "goat_gameevent_game_id_ee8037a1", "game_id", ""),
    ("goat_seat", "goat_seat_game_id_54e357c5", "game_id", ""),
]


def _ours(schema_editor, opclass: str) -> bool:
    return not opclass or schema_editor.connection.vendor == "postgresql"


def drop(apps, schema_editor):
    quote = schema_editor.quote_name
    for _table, index, _column, opclass in INDEXES:
        if _ours(schema_editor, opclass):
            schema_editor.execute(f"DROP INDEX IF EXISTS {quote(index)}")


def create(apps, schema_editor):
    quote = schema_editor.quote_name
    for table, index, column, opclass in INDEXES:
        if _ours(schema_editor, opclass):
            schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {quote(index)} ON {quote(table)} ({quote(column)} {opclass})")


class Migration(migrations.Migration):

    dependencies = [
        ('goat', '0003_game_verification'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop, create)],
            state_operations=[
                migrations.AlterField(
                    model_name='game',
                    name='deadline',
                    field=models.DateTimeField(blank=True, null=True),
                ),
                migrations.AlterField(
                    model_name='game',
                    name='status',
                    field=models.CharField(choices=[('waiting', 'Waiting'), ('running', 'Running'), ('finished', 'Finished'), ('interrupted', 'Interrupted')], default='waiting', max_length=16),
                ),
                migrations.AlterField(
                    model_name='gameevent',
                    name='game',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='events', to='goat.game'),
                ),
                migrations.AlterField(
                    model_name='seat',
                    name='game',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='seat_set', to='goat.game'),
                ),
            ],
        ),
    ]
