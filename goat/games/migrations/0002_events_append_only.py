"""On PostgreSQL the database itself refuses UPDATE and DELETE on game events.

TRUNCATE stays possible (a statement, not a row change: operators restoring a backup and the test
runner's flush use it). On SQLite the model layer refuses changes (``GameEvent.save``/``delete`` and
its queryset).
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION goat_gameevent_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'goat_gameevent is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS goat_gameevent_append_only ON goat_gameevent;
CREATE TRIGGER goat_gameevent_append_only
    BEFORE UPDATE OR DELETE ON goat_gameevent
    FOR EACH ROW EXECUTE FUNCTION goat_gameevent_append_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS goat_gameevent_append_only ON goat_gameevent;
DROP FUNCTION IF EXISTS goat_gameevent_append_only();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("goat", "0001_games")]
    operations = [migrations.RunPython(forward, backward)]
