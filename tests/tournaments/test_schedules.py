"""Tournament schedules (docs/tournaments.md): ISO 8601 periods, templates checked at creation,
each occurrence created once (two beats, a redelivered task), and a stopped schedule."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.db import close_old_connections, connection
from tournament_helpers import FAST

from apitest import token_client
from tournaments import schedules
from tournaments.models import Tournament, TournamentSchedule
from tournaments.tasks import tournament_schedules_run

pytestmark = pytest.mark.django_db(transaction=True)

T0 = datetime(2030, 6, 1, 21, 0, tzinfo=UTC)
TEMPLATE = {"name": "Nightly arena", "ruleset": "goat-classic", "options": dict(FAST), "format": "arena",
            "table_size": 2, "duration_minutes": 60, "max_players": 50, "entry_fee": 10}


def create(director, **changes):
    body = {"template": TEMPLATE, "first_start": T0.isoformat(), "every": "P1D", "announce_before": "PT12H"}
    body.update(changes)
    return director.post("/api/tournament-schedules/", body, format="json")


def test_create_read_and_run_a_schedule(director):
    response = create(director)
    assert response.status_code == 201, response.content
    data = response.json()
    assert (data["every"], data["announce_before"], data["active"], data["tournaments"]) == ("P1D", "PT12H", True, 0)
    assert data["template"]["name"] == "Nightly arena" and "starts_at" not in data["template"]
    schedule_id = data["id"]
    assert director.get(f"/api/tournament-schedules/{schedule_id}/").json() == data
    assert director.get("/api/tournament-schedules/").json()["count"] == 1

    assert schedules.schedules_run(now=T0 - timedelta(hours=13)) == []  # not announced yet
    first = schedules.schedules_run(now=T0 - timedelta(hours=12))
    assert len(first) == 1
    t = Tournament.objects.get(pk=first[0])
    assert (t.starts_at, t.schedule_id, t.name, t.format, t.entry_fee) == (T0, schedule_id, "Nightly arena", "arena",
                                                                          10)
    assert schedules.schedules_run(now=T0 - timedelta(hours=1)) == []  # once
    # a day and a half later: the next occurrence (T0 + 1 day) was announced, the one after is not yet due
    later = schedules.schedules_run(now=T0 + timedelta(hours=12))
    assert [Tournament.objects.get(pk=pk).starts_at for pk in later] == [T0 + timedelta(days=1)]
    assert director.get(f"/api/tournament-schedules/{schedule_id}/").json()["tournaments"] == 2


def test_a_beat_that_was_down_skips_the_occurrences_long_past(director):
    schedule_id = create(director, every="PT1H", announce_before="PT0S").json()["id"]
    created = schedules.schedules_run(now=T0 + timedelta(hours=5, minutes=5))
    assert [Tournament.objects.get(pk=pk).starts_at for pk in created] == [T0 + timedelta(hours=5)]
    assert Tournament.objects.filter(schedule_id=schedule_id).count() == 1


def test_two_beats_and_a_redelivered_task_create_each_occurrence_once(director, monkeypatch):
    create(director, every="PT5M", announce_before="PT30M")
    now = T0 + timedelta(seconds=1)  # due: T0 - 10 min .. T0 + 30 min
    barrier = threading.Barrier(4)
    results, errors = [], []

    def beat():
        try:
            barrier.wait()
            results.append(schedules.schedules_run(now=now))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=beat) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    starts = sorted(Tournament.objects.values_list("starts_at", flat=True))
    assert starts == [T0 + timedelta(minutes=5 * k) for k in range(7)]  # T0 .. T0 + 30 min, each once
    assert sum(len(r) for r in results) == 7
    monkeypatch.setattr(schedules, "timezone", type("Fixed", (), {"now": staticmethod(lambda: now)}))
    assert tournament_schedules_run.delay().get() == []  # the beat task, redelivered: nothing new
    assert Tournament.objects.count() == 7


def test_the_database_refuses_a_second_tournament_of_one_occurrence(director, staff):
    from django.db import IntegrityError, transaction

    from tournaments import services

    create(director)
    [pk] = schedules.schedules_run(now=T0 - timedelta(hours=1))
    schedule = TournamentSchedule.objects.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        services.tournament_create(created_by=staff, starts_at=T0, schedule=schedule, **schedule.template)
    assert list(Tournament.objects.values_list("pk", flat=True)) == [pk]


def test_stopping_a_schedule_leaves_its_tournaments_alone(director):
    schedule_id = create(director).json()["id"]
    [created] = schedules.schedules_run(now=T0 - timedelta(hours=1))
    response = director.patch(f"/api/tournament-schedules/{schedule_id}/", {"active": False}, format="json")
    assert response.status_code == 200 and response.json()["active"] is False
    assert schedules.schedules_run(now=T0 + timedelta(days=3)) == []
    t = Tournament.objects.get(pk=created)
    assert t.status == "scheduled" and t.schedule_id == schedule_id
    assert director.patch(f"/api/tournament-schedules/{schedule_id}/", {"active": True}, format="json").json()["active"]


@pytest.mark.parametrize("changes, field", [
    ({"every": "PT4M59S"}, "every"),
    ({"every": "PT1X"}, "every"),
    ({"every": "P1M"}, "every"),  # no fixed length
    ({"every": ""}, "every"),
    ({"every": "-PT1H"}, "every"),
    ({"announce_before": "P40D"}, "announce_before"),
    ({"announce_before": "soon"}, "announce_before"),
    ({"template": {**TEMPLATE, "starts_at": "2030-01-01T00:00:00Z"}}, "template"),
    ({"template": {**TEMPLATE, "table_size": 7}}, "template"),
    ({"template": {**TEMPLATE, "format": "knockout"}}, "template"),
    ({"template": {**TEMPLATE, "format": "swiss"}}, "template"),  # a swiss needs rounds
    ({"template": {**TEMPLATE, "colour": "red"}}, "template"),
    ({"template": "nightly"}, "template"),
    ({"first_start": "tomorrow"}, "first_start"),
])
def test_bad_schedules_are_400_naming_the_field(director, changes, field):
    response = create(director, **changes)
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid" and field in response.json()["errors"]
    assert not TournamentSchedule.objects.exists()


def test_a_template_the_engine_refuses_is_refused_at_creation(director):
    response = create(director, template={**TEMPLATE, "options": {"limit": -3}})
    assert response.status_code == 400 and response.json()["code"] == "invalid_options"
    assert not TournamentSchedule.objects.exists()


def test_bad_updates_are_400_and_change_nothing(director):
    schedule_id = create(director).json()["id"]
    for body, field in (({"every": "PT1M"}, "every"), ({"template": {"name": "x"}}, "template"),
                        ({"active": "perhaps"}, "active"), ({"colour": "red"}, "colour")):
        response = director.patch(f"/api/tournament-schedules/{schedule_id}/", body, format="json")
        assert response.status_code == 400 and field in response.json()["errors"], (body, response.content)
    schedule = TournamentSchedule.objects.get()
    assert schedule.every == timedelta(days=1) and schedule.template["name"] == "Nightly arena"
    assert director.patch("/api/tournament-schedules/999999/", {"active": False}, format="json").status_code == 404


def test_only_staff_schedule(bots, api_client):
    [player] = bots(1)
    body = {"template": TEMPLATE, "first_start": T0.isoformat(), "every": "P1D"}
    assert token_client(player).post("/api/tournament-schedules/", body, format="json").status_code == 403
    assert token_client(player).get("/api/tournament-schedules/").status_code == 403
    assert api_client.get("/api/tournament-schedules/").status_code == 401
    assert not TournamentSchedule.objects.exists()


def test_an_invite_code_in_a_template_is_kept_as_its_digest(director, bots):
    from tournaments import services

    data = create(director, template={**TEMPLATE, "entry": {"invite_code": "night-owls"}}).json()
    assert "night-owls" not in str(data) and data["template"]["entry"] == {"invite_only": True}
    assert "night-owls" not in str(TournamentSchedule.objects.get().template)
    [pk] = schedules.schedules_run(now=T0 - timedelta(hours=1))
    [player] = bots(1)
    services.tournament_register(tournament_id=pk, player=player, invite_code="night-owls")


def test_admin_creates_and_stops_a_schedule_with_the_same_checks(admin_client):
    import json

    url = "/admin/tournaments/tournamentschedule/add/"
    form = {"template": json.dumps(TEMPLATE), "first_start_0": "2030-06-01", "first_start_1": "21:00:00",
            "every_iso": "PT4M", "announce_before_iso": "PT1H", "active": "on"}
    refused = admin_client.post(url, form)
    assert refused.status_code == 200 and b"at least 5 minutes" in refused.content
    bad_template = admin_client.post(url, {**form, "every_iso": "P1D", "template": json.dumps({"name": "x"})})
    assert bad_template.status_code == 200 and not TournamentSchedule.objects.exists()
    assert admin_client.post(url, {**form, "every_iso": "P1D"}).status_code == 302
    schedule = TournamentSchedule.objects.get()
    assert schedule.every == timedelta(days=1) and schedule.created_by.username == "admin"
    change = f"/admin/tournaments/tournamentschedule/{schedule.pk}/change/"
    page = admin_client.get(change)
    assert b"P1D" in page.content
    admin_client.post(change, {**form, "every_iso": "P1D", "active": ""})
    schedule.refresh_from_db()
    assert schedule.active is False


def test_the_admin_writes_schedules_through_the_services_the_api_uses(admin_client, monkeypatch):
    import json

    calls = []
    for name in ("schedule_create", "schedule_update"):
        real = getattr(schedules, name)
        monkeypatch.setattr(schedules, name, lambda *a, _real=real, _name=name, **kw: calls.append(_name) or _real(
            *a, **kw))
    form = {"template": json.dumps(TEMPLATE), "first_start_0": "2030-06-01", "first_start_1": "21:00:00",
            "every_iso": "P1D", "announce_before_iso": "PT1H", "active": ""}
    assert admin_client.post("/admin/tournaments/tournamentschedule/add/", form).status_code == 302
    schedule = TournamentSchedule.objects.get()
    assert calls == ["schedule_create"] and schedule.active is False  # created stopped, as asked
    change = f"/admin/tournaments/tournamentschedule/{schedule.pk}/change/"
    assert admin_client.post(change, {**form, "active": "on", "every_iso": "P7D"}).status_code == 302
    schedule.refresh_from_db()
    assert calls == ["schedule_create", "schedule_update"]
    assert schedule.active is True and schedule.every == timedelta(days=7)
