"""Tournament schedules (docs/tournaments.md): a template, a first start, an ISO 8601 period
and how far ahead each occurrence is announced.

The beat runs ``schedules_run`` every few seconds: for every active schedule it creates the tournaments
whose start is due to be announced (``start - announce_before <= now``), each once. Once is kept by
the unique constraint on (schedule, starts_at): two beats, or a task redelivered after a worker died,
may both try an occurrence; the second one's insert fails inside its savepoint and is skipped. The
schedule row is locked too, so two runs at once mostly wait rather than fail. An occurrence whose start
is more than ``MISSED_AFTER`` in the past when the beat first sees it (the beat was down) is skipped,
not created late. Stopping a schedule (``active`` False) creates nothing more and leaves the
tournaments it created alone.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

import isodate
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from goat.web.errors import ServiceError, WebError

from . import services
from .checks import TournamentCreateSerializer
from .models import Tournament, TournamentSchedule

NO_SCHEDULE = gettext_lazy("No tournament schedule with that id.")

logger = logging.getLogger(__name__)

#: the shortest period of a schedule (docs/tournaments.md: a period under 5 minutes is refused)
MIN_EVERY = timedelta(minutes=5)
#: the longest period
MAX_EVERY = timedelta(days=366)
#: how far ahead an occurrence may be announced, and how many may be announced at once
MAX_ANNOUNCE = timedelta(days=31)
MAX_ANNOUNCED = 100
#: an occurrence whose start passed longer ago than this when the beat got to it is skipped
MISSED_AFTER = timedelta(minutes=10)


def _invalid(field: str, message: str) -> ServiceError:
    return WebError.INVALID(f"{field}: {message}", errors={field: [message]})


def iso_duration(field: str, value: Any) -> timedelta:
    """``value`` as a fixed-length ISO 8601 duration (``PT30M``, ``P1DT12H``, ``P1W``); 400 ``invalid``
    naming ``field`` otherwise. Years and months are refused: they have no fixed length."""
    if not isinstance(value, str) or not value.strip():
        raise _invalid(field, "Must be an ISO 8601 duration such as PT1H or P7D.")
    try:
        parsed = isodate.parse_duration(value.strip())
    except (isodate.ISO8601Error, ValueError, OverflowError):
        raise _invalid(field, f"{value!r} is not an ISO 8601 duration (such as PT1H or P7D).") from None
    if not isinstance(parsed, timedelta):
        raise _invalid(field, "Years and months have no fixed length: use days or weeks (P30D, P4W).")
    if parsed < timedelta(0):
        raise _invalid(field, "Must not be negative.")
    return parsed


def iso_text(value: timedelta) -> str:
    """A duration in ISO 8601 (``PT1H``, ``P7D``)."""
    return isodate.duration_isoformat(value)


def schedule_durations(*, every: Any, announce_before: Any) -> tuple[timedelta, timedelta]:
    """Both durations parsed and checked: ``every`` from 5 minutes to 366 days, ``announce_before`` at most
    31 days and at most 100 periods (400 naming the field)."""
    period = iso_duration("every", every)
    if period < MIN_EVERY:
        raise _invalid("every", "The period must be at least 5 minutes (PT5M).")
    if period > MAX_EVERY:
        raise _invalid("every", "The period must be at most 366 days.")
    ahead = iso_duration("announce_before", announce_before)
    if ahead > MAX_ANNOUNCE or ahead > period * MAX_ANNOUNCED:
        raise _invalid("announce_before", "At most 31 days, and at most 100 periods, ahead.")
    return period, ahead


@transaction.atomic
def schedule_create(*, created_by, template: dict[str, Any], first_start: datetime, every: timedelta,
                    announce_before: timedelta, active: bool = True) -> TournamentSchedule:
    """A schedule with a template already validated (``schedule_fields``); the API
    and the admin both create schedules here."""
    return TournamentSchedule.objects.create(template=template, first_start=first_start, every=every,
                                             announce_before=announce_before, created_by=created_by, active=active)


@transaction.atomic
def schedule_update(*, schedule_id: int, **changes: Any) -> TournamentSchedule:
    """Change ``active``, ``template``, ``first_start``, ``every`` or ``announce_before`` (validated by the
    caller). Tournaments already created keep what they were created with."""
    schedule = TournamentSchedule.objects.select_for_update().filter(pk=schedule_id).first()
    if schedule is None:
        raise WebError.NOT_FOUND(NO_SCHEDULE)
    for name, value in changes.items():
        setattr(schedule, name, value)
    schedule.save(update_fields=list(changes))
    return schedule


def occurrences_due(schedule: TournamentSchedule, now: datetime) -> list[datetime]:
    """The starts of ``schedule`` to announce at ``now``: ``first_start + k * every`` in
    ``[now - MISSED_AFTER, now + announce_before]``."""
    low, high = now - MISSED_AFTER, now + schedule.announce_before
    k = max(0, -((schedule.first_start - low) // schedule.every))  # the first k with start >= low
    starts = []
    while (start := schedule.first_start + k * schedule.every) <= high:
        if start >= low:
            starts.append(start)
        k += 1
    return starts


def schedule_run(*, schedule_id: int, now: datetime | None = None) -> list[int]:
    """Create the due occurrences of one schedule that do not exist yet; returns the new tournaments' ids."""
    now = now or timezone.now()
    created = []
    with transaction.atomic():
        schedule = TournamentSchedule.objects.select_for_update().filter(pk=schedule_id, active=True).first()
        if schedule is None:
            return []
        existing = set(Tournament.objects.filter(schedule=schedule).values_list("starts_at", flat=True))
        for start in occurrences_due(schedule, now):
            if start in existing:
                continue
            try:
                with transaction.atomic():
                    tournament = services.tournament_create(created_by=schedule.created_by, starts_at=start,
                                                            schedule=schedule, **schedule.template)
            except IntegrityError:  # created concurrently (another beat, a redelivered task)
                continue
            created.append(tournament.pk)
            logger.info("schedule %s: tournament %s announced for %s", schedule.pk, tournament.pk, start)
    return created


def schedules_run(*, now: datetime | None = None) -> list[int]:
    """Every active schedule's due occurrences (the beat's job); returns the new tournaments' ids."""
    now = now or timezone.now()
    ids = list(TournamentSchedule.objects.filter(active=True).order_by("id").values_list("pk", flat=True))
    return [pk for schedule_id in ids for pk in schedule_run(schedule_id=schedule_id, now=now)]


def schedule_template_validate(template: Any, first_start) -> dict[str, Any]:
    """A schedule's template checked as a tournament would be at creation (every field but ``starts_at``,
    the options resolved by the engine): 400 ``invalid`` with ``errors.template`` (or ``invalid_options``)
    when it would not make a tournament. Returns what is stored: the validated fields, the invite code
    as its digest."""
    if not isinstance(template, dict):
        message = gettext("Must be an object of tournament fields.")
        raise WebError.INVALID(f"template: {message}", errors={"template": [message]})
    if "starts_at" in template:
        message = "Every tournament field except starts_at: each occurrence starts at first_start + k * every."
        raise WebError.INVALID(f"template: {message}", errors={"template": [message]})
    serializer = TournamentCreateSerializer(data={**template, "starts_at": first_start})
    if not serializer.is_valid():
        messages = [f"{name}: {message}" for name, problems in serializer.errors.items()
                    for message in (problems if isinstance(problems, list) else [problems])]
        raise WebError.INVALID("template: " + " ".join(messages), errors={"template": messages})
    data = dict(serializer.validated_data)
    data.pop("starts_at")
    services.tournament_options(ruleset=data["ruleset"], table_size=data["table_size"],
                                options=data.get("options"))  # InvalidOptions: 400 invalid_options
    entry = dict(data.get("entry") or {})
    code = entry.pop("invite_code", None)
    if code:
        entry["invite_code_digest"] = services.invite_code_digest(code)
    data["entry"] = entry
    return data


def schedule_fields(data: dict[str, Any], schedule: TournamentSchedule | None = None) -> dict[str, Any]:
    """Validated model fields from a schedule's create or update body (the API's, the admin's form's):
    400 naming the field (``every``, ``announce_before``, ``template``), or ``invalid_options``."""
    fields: dict[str, Any] = {}
    if "active" in data:
        fields["active"] = data["active"]
    if "first_start" in data:
        fields["first_start"] = data["first_start"]
    if "every" in data or "announce_before" in data:
        every = data.get("every", iso_text(schedule.every) if schedule else None)
        ahead = data.get("announce_before", iso_text(schedule.announce_before) if schedule else "PT0S")
        fields["every"], fields["announce_before"] = schedule_durations(every=every, announce_before=ahead)
    if "template" in data:
        first = fields.get("first_start") or (schedule.first_start if schedule else None)
        fields["template"] = schedule_template_validate(data["template"], first)
    return fields
