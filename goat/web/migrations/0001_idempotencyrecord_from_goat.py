"""IdempotencyRecord, taken over from the games app (label "goat") with its table
goat_idempotencyrecord, which goat's 0001 migration created: only the migration state is added."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("goat", "0004_drop_redundant_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IdempotencyRecord",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("key", models.CharField(max_length=255)),
                        ("fingerprint", models.CharField(max_length=64)),
                        ("status_code", models.PositiveSmallIntegerField(null=True)),
                        ("content_type", models.CharField(blank=True, default="", max_length=100)),
                        ("body", models.BinaryField(null=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("completed_at", models.DateTimeField(null=True)),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "goat_idempotencyrecord",
                        "constraints": [
                            models.UniqueConstraint(fields=("user", "key"), name="idempotency_key_unique_per_user")
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
