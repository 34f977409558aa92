"""UsernameKey: every account's folded username, unique. Existing accounts get theirs here; of two
existing accounts whose names fold alike, the older keeps the key and the newer gets none, which the
system check players.W001 reports (nothing is merged or renamed)."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import migrations, models


def keys_create(apps, schema_editor):
    from goat.players.usernames import username_fold

    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    UsernameKey = apps.get_model("players", "UsernameKey")
    taken: set[str] = set()
    keys = []
    field = get_user_model().USERNAME_FIELD
    for pk, name in User.objects.order_by("pk").values_list("pk", field).iterator():
        folded = username_fold(name)
        if folded not in taken:
            taken.add(folded)
            keys.append(UsernameKey(user_id=pk, folded=folded))
    UsernameKey.objects.bulk_create(keys, batch_size=1000)


class Migration(migrations.Migration):
    initial = True

    dependencies = [migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        migrations.CreateModel(
            name="UsernameKey",
            fields=[
                ("user", models.OneToOneField(on_delete=models.deletion.CASCADE, primary_key=True,
                                              related_name="username_key", serialize=False,
                                              to=settings.AUTH_USER_MODEL)),
                ("folded", models.CharField(max_length=600)),
            ],
            options={"constraints": [models.UniqueConstraint(fields=("folded",),
                                                             name="players_usernamekey_folded_unique")]},
        ),
        migrations.RunPython(keys_create, migrations.RunPython.noop),
    ]
