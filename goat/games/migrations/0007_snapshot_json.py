"""Snapshots in the engine's versioned JSON form instead of pickle (docs/architecture.md: no pickle).

The pickled snapshots are dropped, not converted: reading them would mean unpickling data from the
database. A snapshot is a cache: a game without one has its state rebuilt from its events on its
next load, and its next command writes the JSON snapshot (``eventstore.state_load``)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("goat", "0006_deadline_index_and_projection_records")]

    operations = [
        migrations.RemoveField(model_name="game", name="snapshot"),
        migrations.AddField(model_name="game", name="snapshot", field=models.TextField(editable=False, null=True)),
    ]
