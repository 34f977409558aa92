"""The daily fair-play scan (beat: ``fairplay-scan``), on the default queue; the analyses it asks for
run on the ``analysis`` queue, as every analysis does."""

from __future__ import annotations

from celery import shared_task

from goat.fairplay import services


@shared_task(name="goat.fairplay.scan")
def fairplay_scan() -> dict[str, int]:
    return services.scan()
