"""The standings projection is tracked per game (goat.games.projections) from now on. A table already
counted in the standings (``recorded_at`` set) is recorded as applied, so it is never counted again."""

from django.db import migrations

STANDINGS = "tournaments.standings"


def record_applied(apps, schema_editor):
    Table = apps.get_model("tournaments", "Table")
    ProjectionRecord = apps.get_model("goat", "ProjectionRecord")
    games = Table.objects.filter(recorded_at__isnull=False).values_list("game_id", flat=True)
    ProjectionRecord.objects.bulk_create([ProjectionRecord(projection=STANDINGS, game_id=g) for g in games],
                                         batch_size=1000, ignore_conflicts=True)


def forget(apps, schema_editor):
    apps.get_model("goat", "ProjectionRecord").objects.filter(projection=STANDINGS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0001_tournaments"),
        ("goat", "0006_deadline_index_and_projection_records"),
    ]

    operations = [migrations.RunPython(record_applied, forget)]
