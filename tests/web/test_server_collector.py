"""A web worker's garbage collector (goat.serve.server.collector_settle): the boot's objects frozen out
of every collection, the older generations collected rarely."""

from __future__ import annotations

import gc

from goat.serve import server


def test_the_boots_objects_are_frozen_and_the_thresholds_raised():
    before = gc.get_threshold()
    try:
        booted = [["kept for the life of the process"]]
        assert gc.is_tracked(booted) and any(thing is booted for thing in gc.get_objects())
        server.collector_settle()
        assert gc.get_threshold() == server.GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
        assert not any(thing is booted for thing in gc.get_objects())  # frozen: in no generation
        made_later = [["made after the boot"]]
        assert any(thing is made_later for thing in gc.get_objects())
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
