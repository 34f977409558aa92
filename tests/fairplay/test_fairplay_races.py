"""Concurrent reviews of one report, and concurrent scans: one review wins, one open report per subject."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from factories import make_players

from goat.fairplay import services
from goat.fairplay.models import FairPlayReport, FairPlayReview, ReportKind, ReportStatus
from goat.web.errors import ServiceError
from testkit import run_together

pytestmark = [pytest.mark.database, pytest.mark.django_db(transaction=True)]

THREADS = 8


def open_report() -> FairPlayReport:
    services._upsert(ReportKind.ASSISTANCE, "fay", ["fay"], ruleset="goat-classic", score=4.0, confidence=0.99,
                     decisions=300, statistics={}, evidence={"games": [], "moves": []})
    return FairPlayReport.objects.get()


def test_concurrent_reviews_one_wins_and_one_row_is_logged(django_user_model):
    make_players("fay")
    report = open_report()
    judges = []
    for i in range(THREADS):
        judge = django_user_model.objects.create_user(username=f"judge{i}", password="x" * 12, is_staff=True)
        judge.user_permissions.add(Permission.objects.get(codename="review_fair_play"))
        judges.append(judge)

    def review(i):
        try:
            services.review(report_id=report.pk, reviewer=judges[i], outcome="warned", note=str(i))
            return "ok"
        except ServiceError as exc:
            return exc.code

    results = run_together(THREADS, review)

    assert sorted(results) == ["ok"] + ["report_reviewed"] * (THREADS - 1), results
    assert FairPlayReview.objects.count() == 1
    assert FairPlayReport.objects.get().status == ReportStatus.REVIEWED


def test_concurrent_scans_keep_one_open_report_per_subject():
    make_players("fay")

    results = run_together(THREADS, lambda i: open_report().pk)

    assert len(set(results)) == 1, results
    assert FairPlayReport.objects.count() == 1 and FairPlayReport.objects.get().players.count() == 1
