"""Every name a link, a finished tournament's real start and end, no 0-chip prizes, and the newcomer's
help: the scoresheet's legend, the note when the bazaar gives tiles, the links to the rules (issue 34
items 5 and 6; the rules pages themselves: test_rules_pages.py)."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client
from django.utils.html import escape
from factories import FAST, committed, finished_game, make_players, make_tournament, play, start_game

from goat import engine
from goat.engine.tiles import tile_str
from goat.games import eventstore, services
from goat.games.models import Game

pytestmark = pytest.mark.django_db

#: a prize of nothing, as a page would say it
NOTHING = re.compile(r"(?<!\d)0 chips")


def _section(html: str, element_id: str) -> str:
    """The element with ``element_id`` up to the end of its table or section."""
    start = html.index(f'id="{element_id}"')
    ends = [i for i in (html.find("</table>", start), html.find("</section>", start)) if i > 0]
    return html[start:min(ends)]


def _note(html: str) -> str:
    """The last note of a draw from the bazaar among a game page's notes (goat.games.table.notes)."""
    note = html[html.index('id="table-notes"'):]
    note = note[:note.index("</ol>")]
    drawn = note[note.rindex('data-type="tile_drawn"'):]  # the last draw's note
    return drawn[:drawn.index("</li>")]


def _said(at, language: str = "en", zone: str = "UTC") -> str:
    """``at`` as a page says it to a reader of ``language`` in ``zone``: the ``<time>`` element."""
    import zoneinfo

    from django.utils import dateformat, timezone, translation

    with translation.override(language), timezone.override(zoneinfo.ZoneInfo(zone)):
        words = dateformat.format(timezone.localtime(at), "j E Y, H:i")
    iso = at.astimezone(zoneinfo.ZoneInfo("UTC")).isoformat().replace("+00:00", "Z")
    return f'<time datetime="{iso}">{words}</time>'


def _link(name: str) -> str:
    return f'<a class="player-link" href="/players/{name}/">{name}</a>'


# --- every name a link ----------------------------------------------------------------------------


def _played_tournament(names, **fields):
    people = make_players(*names)
    cup = make_tournament(name="Links cup", players=people, **fields)
    for table in cup.tables.select_related("game"):
        seated = [s.player for s in table.game.seat_set.select_related("player").order_by("seat")]
        play(table.game, seated, seed=table.number)
    cup.refresh_from_db()
    return cup


def test_the_crosstable_links_every_player_opponent_and_game():
    cup = _played_tournament(["ann", "ben", "cat", "dan"])
    html = Client().get(f"/tournaments/{cup.pk}/").content.decode()
    assert 'id="tournament-rules" href="/rules/goat-classic/"' in html
    crosstable = _section(html, "crosstable")
    for name in ("ann", "ben", "cat", "dan"):
        # the row's player and, in another row, the same name as an opponent
        assert crosstable.count(_link(name)) == 2, name
    for table in cup.tables.all():
        assert crosstable.count(f'<a class="game-link" href="/games/{table.game_id}/">{table.game_id}</a>') == 2


def test_a_finished_tournament_shows_when_it_really_started_and_ended_and_no_prize_of_nothing():
    cup = _played_tournament(["ann", "ben"])
    assert cup.status == "finished" and cup.started_at and cup.finished_at
    assert list(cup.prizes.values_list("amount", flat=True)) and not any(cup.prizes.values_list("amount", flat=True))
    html = Client().get(f"/tournaments/{cup.pk}/").content.decode()
    started, ended = (_said(at) for at in (cup.started_at, cup.finished_at))
    assert f'<span id="tournament-started">started {started}</span>' in html
    assert f'<span id="tournament-ended">ended {ended}</span>' in html
    assert "Prizes" not in html and not NOTHING.search(html)  # a free tournament pays nothing to list
    listing = Client().get("/tournaments/").content.decode()
    assert f"started {started}" in listing and f"ended {ended}" in listing
    russian = Client().get(f"/tournaments/{cup.pk}/", headers={"Accept-Language": "ru"}).content.decode()
    # a Russian reader's dates are in Moscow time, in their words
    started, ended = (_said(at, "ru", "Europe/Moscow") for at in (cup.started_at, cup.finished_at))
    assert f"начало: {started}" in russian and f"окончание: {ended}" in russian

    ann = cup.prizes.get(place=1).player
    cup.prizes.filter(place=1).update(amount=30)  # a paid first place is listed, the empty ones are not
    html = Client().get(f"/tournaments/{cup.pk}/").content.decode()
    prizes = html[html.index('class="prizes"'):html.index("</ol>")]
    assert f'href="/players/{ann.username}/"' in prizes and "30 chips" in prizes and not NOTHING.search(html)


def test_a_scheduled_tournament_still_shows_its_announced_start():
    from datetime import timedelta

    cup = make_tournament(name="Later", players=make_players("ann"), start=False, starts_in=timedelta(days=1))
    html = Client().get(f"/tournaments/{cup.pk}/").content.decode()
    assert f"starts {_said(cup.starts_at)}" in html and 'id="tournament-started"' not in html


def test_the_replay_captions_and_every_name_on_a_games_page_link_to_the_players():
    ann, ben = make_players("ann", "ben")
    game = finished_game([ann, ben], options=FAST, seed=2)
    log = list(eventstore.events_load(game_id=game.pk))
    step = next(e.seq for e in log if e.type == "tile_played")
    player = [ann, ben][next(e.seat for e in log if e.type == "tile_played")].username
    html = Client().get(f"/games/{game.pk}/?step={step}").content.decode()
    caption = html[html.index('id="replay-caption"'):html.index("</p>", html.index('id="replay-caption"'))]
    assert _link(player) in caption
    sheet = _section(html, "scoresheet")
    assert _link("ann") in sheet and _link("ben") in sheet
    replay = _section(html, "replay")
    assert _link("ann") in replay and _link("ben") in replay  # the hands' headings
    seat_taken = Client().get(f"/games/{game.pk}/?step=2").content.decode()
    caption = seat_taken[seat_taken.index('id="replay-caption"'):]
    assert _link("ann") in caption[:caption.index("</p>")]


def test_a_caption_escapes_a_hostile_name_inside_its_link(django_user_model):
    odd = django_user_model.objects.create_user(username="<b>x</b>&", password="x")
    (ben,) = make_players("ben")
    game = finished_game([odd, ben], options=FAST, seed=2)
    html = Client().get(f"/games/{game.pk}/?step=2").content.decode()  # "<odd> takes seat 0"
    caption = html[html.index('id="replay-caption"'):]
    caption = caption[:caption.index("</p>")]
    assert f">{escape('<b>x</b>&')}</a>" in caption and "<b>x</b>" not in caption


# --- the scoresheet's legend and the rules links -----------------------------------------------------


@pytest.mark.parametrize("ruleset", ["goat-classic", "goat-gamesburg", "domino-3rounds"])
def test_a_games_scoresheet_has_a_legend_and_the_page_links_its_rules(ruleset):
    people = make_players("ann", "ben")
    options = {"move_time": 0, "ante": 0} if ruleset == "domino-3rounds" else {**FAST, "ante": 0}
    game = finished_game(people, ruleset=ruleset, options=options, seed=1)
    html = Client().get(f"/games/{game.pk}/").content.decode()
    assert f'id="game-rules" href="/rules/{ruleset}/"' in html
    legend = html[html.index('id="scoresheet-legend"'):html.index("</div>", html.index('id="scoresheet-legend"'))]
    assert f'href="/rules/{ruleset}/"' in legend
    if ruleset == "domino-3rounds":
        assert "A number in brackets" not in legend and "The pips left in each hand" in legend
    else:
        assert "A number in brackets" in legend and "opening threshold (here: 12)" in legend
        counts = "count towards the limit" if ruleset == "goat-classic" else "count once the player has opened"
        assert counts in legend
    russian = Client().get(f"/games/{game.pk}/", headers={"Accept-Language": "ru"}).content.decode()
    legend = russian[russian.index('id="scoresheet-legend"'):]
    assert "Как читать запись счёта" in legend
    if ruleset != "domino-3rounds":
        assert "Число в скобках" in legend and "в уме" in legend


def test_the_play_table_links_its_rules_and_has_the_legend():
    ann, ben = make_players("ann", "ben")
    game = start_game([ann, ben], ruleset="goat-gamesburg", options={**FAST, "ante": 0})
    client = Client()
    client.force_login(ann)
    html = client.get(f"/play/{game.pk}/").content.decode()
    assert 'id="table-rules" href="/rules/goat-gamesburg/"' in html
    assert 'id="scoresheet-legend"' in html and "count once the player has opened" in html
    assert 'id="table-notes"' in html  # the script fills it from the table model
    lobby = client.get("/play/").content.decode()
    assert 'id="new-game-rules" href="/rules/"' in lobby and 'id="scoresheet-legend"' not in lobby
    assert client.get("/play/999999/").status_code == 404


# --- the bazaar's note -------------------------------------------------------------------------------


def _event(seq, kind, seat, **data):
    return {"seq": seq, "type": kind, "seat": seat, "data": data}


def _game_where_the_bazaar_just_gave_tiles() -> tuple[Game, int, list[str]]:
    """A running two-seat game right after a move that made the next player draw: (game, the drawer's
    seat, the tiles drawn)."""
    people = make_players("ann", "ben")
    game = start_game(people, options=FAST)
    rng = random.Random(5)
    for _ in range(300):
        state = eventstore.state_load(game)
        tile, end = rng.choice(engine.legal_moves(state))
        with committed():
            services.game_play_tile(game_id=game.pk, player=people[state.turn], tile=tile_str(tile), end=end)
        game.refresh_from_db()
        if game.ended:
            game = start_game(people, options=FAST)
            continue
        tail = eventstore.events_load(game_id=game.pk, after=game.version - 1)
        if tail and tail[-1].type == "tile_drawn":
            drawn = []
            for event in reversed(eventstore.events_load(game_id=game.pk)):
                if event.type != "tile_drawn":
                    break
                drawn.insert(0, event.data["tile"])
            return game, tail[-1].seat, drawn
    raise AssertionError("no draw from the bazaar in 300 moves")


def test_the_games_page_notes_who_took_tiles_from_the_bazaar_and_only_the_drawer_sees_which():
    game, seat, drawn = _game_where_the_bazaar_just_gave_tiles()
    drawer = game.seat_set.get(seat=seat).player
    other = game.seat_set.exclude(seat=seat).get().player
    count = len(drawn)
    note = _note(Client().get(f"/games/{game.pk}/").content.decode())
    tiles_word = "tile" if count == 1 else "tiles"
    assert f"{_link(drawer.username)} takes {count} {tiles_word} from the bazaar." in note
    assert not re.search(r"\d-\d", note)  # which tiles stays hidden
    seated = Client()
    seated.force_login(drawer)
    assert f"You take {count} {tiles_word} from the bazaar: {', '.join(drawn)}." in _note(
        seated.get(f"/games/{game.pk}/").content.decode())
    opponent = Client()
    opponent.force_login(other)
    theirs = _note(opponent.get(f"/games/{game.pk}/").content.decode())
    assert _link(drawer.username) in theirs and not re.search(r"\d-\d", theirs)
    russian = _note(Client().get(f"/games/{game.pk}/", headers={"Accept-Language": "ru"}).content.decode())
    assert f"{_link(drawer.username)} берёт с базара {count} " in russian
