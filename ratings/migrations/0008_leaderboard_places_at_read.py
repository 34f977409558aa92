"""Leaderboard places are computed at read (decisions.md R-9): the stored rank and its index go, and
the board's ``ranked_at`` becomes ``counted_at`` (when its count was last recomputed)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0007_verbose_names'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='leaderboardrow',
            name='leaderboard_rank_idx',
        ),
        migrations.RemoveField(
            model_name='leaderboardrow',
            name='rank',
        ),
        migrations.RenameField(
            model_name='leaderboardboard',
            old_name='ranked_at',
            new_name='counted_at',
        ),
        migrations.AlterField(
            model_name='leaderboardboard',
            name='counted_at',
            field=models.DateTimeField(blank=True, null=True, verbose_name='counted at'),
        ),
    ]
