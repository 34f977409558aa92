"""The ratings projections are tracked per game (goat.games.projections) from now on. A game applied
before (it has rating ledger entries: the ledger, chips, skill and boards were written in one
transaction) is recorded as applied by all four, so the catch-up never applies it again."""

from django.db import migrations

PROJECTIONS = ("ratings.ledger", "ratings.chips", "ratings.skill", "ratings.leaderboards")


def record_applied(apps, schema_editor):
    RatingEntry = apps.get_model("ratings", "RatingEntry")
    ProjectionRecord = apps.get_model("goat", "ProjectionRecord")
    games = sorted(set(RatingEntry.objects.values_list("game_id", flat=True)))
    ProjectionRecord.objects.bulk_create(
        [ProjectionRecord(projection=name, game_id=game_id) for game_id in games for name in PROJECTIONS],
        batch_size=1000, ignore_conflicts=True)


def forget(apps, schema_editor):
    apps.get_model("goat", "ProjectionRecord").objects.filter(projection__in=PROJECTIONS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0003_leaderboard_ranks"),
        ("goat", "0006_deadline_index_and_projection_records"),
    ]

    operations = [migrations.RunPython(record_applied, forget)]
