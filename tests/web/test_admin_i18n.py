"""The admin in Russian (docs/site.md "Principles": the admin's own strings): every label staff read.

test_i18n checks that every string marked for translation has its Russian; this module checks that
the admin's labels are marked at all: a model or field name Django derives from the code, an action
or column described by a plain string, would stay English and pass the catalog check. So every label
of every model of goat's apps that the admin shows (and of its inlines) must read differently in
Russian than in English. The pages themselves are then opened in Russian.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.options import InlineModelAdmin
from django.utils import translation

from goat.engine.events import HANDLERS

OUR_APPS = {"goat", "web", "players", "ratings", "tournaments", "fairplay"}


def _russian_differs(value: object) -> bool:
    with translation.override("en"):
        english = str(value)
    with translation.override("ru"):
        russian = str(value)
    return russian != english


def untranslated(labels: Iterable[tuple[str, object]]) -> list[str]:
    """The places whose label reads the same in Russian as in English (not marked, or not translated)."""
    return [where for where, value in labels if not _russian_differs(value)]


def _described(where: str, thing: object) -> list[tuple[str, object]]:
    if isinstance(thing, str) or not hasattr(thing, "short_description"):
        return []
    return [(where, thing.short_description)]


def admin_labels() -> list[tuple[str, object]]:
    """Every label the admin shows for goat's models: apps, models, fields, choices, actions, columns,
    filters, inlines."""
    labels: list[tuple[str, object]] = []
    admins: list[tuple[object, admin.ModelAdmin | InlineModelAdmin]] = []
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label not in OUR_APPS:
            continue
        admins.append((model, model_admin))
        admins.extend((inline.model, inline(model, admin.site)) for inline in model_admin.inlines)
    for model, model_admin in admins:
        opts = model._meta
        name = opts.label
        labels.append((f"app {opts.app_label}", apps.get_app_config(opts.app_label).verbose_name))
        labels += [(f"{name} verbose_name", opts.verbose_name),
                   (f"{name} verbose_name_plural", opts.verbose_name_plural)]
        for field in opts.get_fields():
            if field.auto_created or not hasattr(field, "verbose_name"):
                continue  # the automatic id ("ID", Django's own word) and reverse relations
            labels.append((f"{name}.{field.name}", field.verbose_name))
            labels += [(f"{name}.{field.name} = {value}", label) for value, label in (field.choices or [])]
        for action in getattr(model_admin, "actions", None) or ():
            labels += _described(f"{name} action {action}", getattr(model_admin, action, action))
        shown = [*getattr(model_admin, "list_display", ()), *model_admin.readonly_fields]
        for column in shown:
            labels += _described(f"{name} column {column}", getattr(model_admin, column, column)
                                 if isinstance(column, str) else column)
        for list_filter in getattr(model_admin, "list_filter", ()):
            if isinstance(list_filter, type):
                labels.append((f"{name} filter {list_filter.__name__}", list_filter.title))
    return labels


def test_every_admin_label_of_goats_models_reads_in_russian():
    labels = admin_labels()
    assert len(labels) > 200  # models, fields, choices, actions and columns were found
    assert untranslated(labels) == [], (
        "admin labels without Russian: mark them (verbose_name=_(...), gettext_lazy descriptions), run "
        "`python manage.py makemigrations` (state only) and `makemessages -l ru`, translate, compilemessages")


def test_the_admin_label_check_catches_an_unmarked_label():
    """The check above can fail: a label that is a plain English string, or a marked one that the
    catalog lacks, is reported."""
    assert untranslated([("plain", "organiser actions"), ("unknown", translation.gettext_lazy("No such words")),
                         ("marked", translation.gettext_lazy("organiser actions"))]) == ["plain", "unknown"]


# --- the admin's pages in Russian ----------------------------------------------------------------------

RU = {"HTTP_ACCEPT_LANGUAGE": "ru"}


@pytest.fixture
def ru_admin(admin_client):
    admin_client.cookies.load({"django_language": "ru"})
    return admin_client


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.django_db
def test_the_admin_index_and_lists_speak_russian(ru_admin, spring_cup):
    index = ru_admin.get("/admin/", **RU).content.decode()
    for words in ("Партии в козла", "Рейтинги, фишки и таблицы лидеров", "записи журнала рейтинга",
                  "Турниры", "расписания турниров"):
        assert words.lower() in index.lower(), words
    for english in ("Goat games", "Rating ledger entries", "Tournament schedules"):
        assert english not in index, english
    listing = _text(ru_admin.get("/admin/tournaments/tournament/", **RU).content.decode())
    assert "Начать выбранные турниры сейчас" in listing and "Start the selected" not in listing
    assert "Призовой фонд" in listing and "Prize pool" not in listing  # a column head from verbose_name


@pytest.fixture
def spring_cup(django_user_model):
    from datetime import timedelta

    from django.utils import timezone

    from tournaments.models import Tournament

    staff = django_user_model.objects.create_user(username="maker", password="x", is_staff=True)
    return Tournament.objects.create(name="Весенний кубок", ruleset="goat-classic", options={}, format="swiss",
                                     rounds=2, table_size=2, starts_at=timezone.now() + timedelta(hours=1),
                                     max_players=8, created_by=staff)


@pytest.mark.django_db
def test_the_organisers_confirmation_page_and_message_speak_russian(ru_admin, spring_cup):
    tournament = spring_cup
    url = f"/admin/tournaments/tournament/{tournament.pk}/cancel/"
    html = ru_admin.get(url, **RU).content.decode()
    assert 'value="Да, отменить"' in html  # the confirm button
    page = _text(html)
    for words in ("Отменить турнир «Весенний кубок»?", "все взносы возвращаются", "Нет, вернуться",
                  "Причина", "Показывается на страницах турнира."):
        assert words in page, words
    assert "Yes, cancel" not in page and "take me back" not in page
    done = ru_admin.post(url, {"confirm": "yes", "reason": "Дождь."}, follow=True, **RU)
    assert "отменён." in _text(done.content.decode())
    change = _text(ru_admin.get(f"/admin/tournaments/tournament/{tournament.pk}/change/", **RU).content.decode())
    assert "Причина отмены" in change and "Дождь." in change and "Cancel reason" not in change


@pytest.mark.django_db
def test_the_audit_replay_captions_speak_russian(ru_admin, django_user_model):
    from goat.games import services
    from goat.games.computer import stand_ins_play
    from goat.games.models import GameEvent

    anya, borya = (django_user_model.objects.create_user(username=n, password="x") for n in ("anya", "borya"))
    game = services.game_create(player=anya, ruleset="goat-classic", seats=2,
                                options={"limit": 25, "move_time": 0}).game
    services.game_join(game_id=game.pk, player=borya)
    stand_ins_play(everyone=True, game_ids=[game.pk], until_done=True, seed=3)
    played = GameEvent.objects.filter(game=game, type="tile_played").order_by("seq").first()
    # the first deal that stood (a void deal, dealt again, has a caption of its own)
    dealt = next(e for e in GameEvent.objects.filter(game=game, type="round_dealt").order_by("seq")
                 if not e.data.get("void"))
    html = ru_admin.get(f"/admin/goat/game/{game.pk}/replay/?step={played.seq}", **RU).content.decode()
    caption = re.search(r'<p id="replay-caption"[^>]*>(.*?)</p>', html, re.S).group(1)
    assert caption.startswith(f"#{played.seq} ход: ")  # the event by its word; its type only in an attribute
    assert 'data-type="tile_played"' in html and "tile_played" not in caption
    assert "ставит" in caption and ("слева" in caption or "справа" in caption) and "plays" not in caption
    html = ru_admin.get(f"/admin/goat/game/{game.pk}/replay/?step={dealt.seq}", **RU).content.decode()
    assert f"#{dealt.seq} раздача: Кон {dealt.data['round']} роздан." in html
    first = ru_admin.get(f"/admin/goat/game/{game.pk}/replay/?step=0", **RU).content.decode()
    assert "До первого события." in first



@pytest.mark.parametrize("event_type", sorted(HANDLERS))
def test_every_event_type_has_a_russian_replay_caption(event_type):
    """A new event type without its words would fall back to its stored name in English."""
    from goat.games.table import describe

    event = {"seq": 7, "type": event_type, "seat": 1,
             "data": {"tile": "3-5", "end": "left", "round": 2, "attempt": 1, "player": "anya", "seat": 1,
                      "ruleset": "goat-classic", "seats": 2, "server_seed": "ab"}}
    with translation.override("en"):
        english = describe(event, ["anya", "borya"])
    with translation.override("ru"):
        russian = describe(event, ["anya", "borya"])
    assert event_type not in russian and event_type not in english  # the code stays out of the text
    assert russian != english and not any(word in russian for word in ("seat", "the ", "game", "played"))


@pytest.mark.django_db
def test_the_admin_names_goat_and_declines_its_models(ru_admin, django_user_model):
    """Its header is goat's, not Django's; a title selects the model in the accusative, a list counts
    it with Russian's plural forms."""
    from goat.games import services

    anya = django_user_model.objects.create_user(username="anya", password="x")
    ids = [services.game_create(player=anya, ruleset="goat-classic", seats=2).game.pk for _ in range(5)]
    for query, form in ((f"?id={ids[0]}", "1 партия"), (f"?id__in={ids[0]},{ids[1]}", "2 партии"), ("", "5 партий")):
        page = _text(ru_admin.get(f"/admin/goat/game/{query}", **RU).content.decode())
        assert form in page, (query, form)
        assert "Выберите партию для" in page and "Выберите партия" not in page
        assert "Козёл: администрирование" in page and "Django" not in page
    tournaments = _text(ru_admin.get("/admin/tournaments/tournament/", **RU).content.decode())
    assert "0 турниров" in tournaments and "Выберите турнир для" in tournaments
    users = _text(ru_admin.get("/admin/auth/user/", **RU).content.decode())
    assert "Выберите пользователя для изменения" in users and "Добавить пользователя" in users


def test_russian_month_days_are_genitive():
    from datetime import date

    from django.utils import formats

    with translation.override("ru"):
        assert formats.date_format(date(2026, 12, 2), "MONTH_DAY_FORMAT") == "2 декабря"
    with translation.override("en"):
        assert formats.date_format(date(2026, 12, 2), "MONTH_DAY_FORMAT") == "December 2"


def test_djangos_admin_messages_guess_no_gender():
    """«Расписание … был успешно изменен» guesses a gender: goat's catalog, read before Django's, says
    Django's saved/changed/deleted messages without one."""
    from goat.web.admin_site import DJANGO_MESSAGES

    with translation.override("ru"):
        said = [translation.gettext(message) for message in DJANGO_MESSAGES]
    assert len(said) == 6 and not [s for s in said if re.search(r"\bбыл|успешно", s)]
    changed = said[2].format(name="расписание турниров", obj="Пятница")
    assert changed == "Изменения сохранены: расписание турниров «Пятница»."
