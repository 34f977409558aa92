"""goat-pairs through the Django layer (docs/rules.md §12): creation refused with a problem detail and
nothing stored; the game view's ``seats[i].team`` and ``result.pair``; the one scoresheet presenter with
a column per pair and each partner's share; the result «козлы: Маша и Колян» in both languages; the
partner marked at the table; a partner's hand hidden like anyone's."""

from __future__ import annotations

import pytest
from django.utils import translation
from factories import FAST, finished_game, make_players, start_game

from apitest import assert_problem, token_client
from goat.games import selectors
from goat.games.models import Game
from goat.games.table import parts_text, table_model

pytestmark = pytest.mark.django_db

NAMES = ("masha", "alex", "olya", "kolyan")


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


@pytest.mark.parametrize("body", [
    {"ruleset": "goat-pairs", "seats": 3},
    {"ruleset": "goat-pairs", "seats": 2},
    {"ruleset": "goat-pairs", "seats": 4, "options": {"hand_size": 5}},
    {"ruleset": "goat-pairs", "seats": 4, "options": {"bazaar_reserve": 2}},
    {"ruleset": "goat-pairs", "seats": 4, "options": {"scoring": "rounds", "rounds": 3}},
])
def test_a_pairs_game_the_ruleset_cannot_play_is_refused_and_nothing_is_stored(body):
    (masha,) = make_players("masha")
    before = Game.objects.count()
    response = token_client(masha).post("/api/games/", body, format="json")
    assert_problem(response, 400, "invalid_options")
    assert Game.objects.count() == before


def test_the_view_names_each_seats_pair_and_the_result_the_losing_pair():
    people = make_players(*NAMES)
    game = finished_game(people, ruleset="goat-pairs", options={**FAST, "limit": 40}, seed=4)
    view = token_client(people[0]).get(f"/api/games/{game.pk}/").json()
    assert [s["team"] for s in view["seats"]] == [0, 1, 0, 1]
    result = view["result"]
    pair = result["pair"]
    assert sorted(pair["goats"]) == sorted(result["goats"]) and len(pair["goats"]) == 2
    assert {s % 2 for s in pair["goats"]} != {s % 2 for s in pair["winners"]}
    points = {s["seat"]: s["points"] for s in view["seats"]}
    assert pair["margin"] == points[pair["goats"][0]] - points[pair["winners"][0]]
    assert pair["dry"] == (result["reason"] == "limit" and points[pair["winners"][0]] == 0)
    classic = finished_game(make_players("a1", "b1"), options=FAST, seed=1)
    other = token_client(classic.seat_set.first().player).get(f"/api/games/{classic.pk}/").json()
    assert [s["team"] for s in other["seats"]] == [None, None] and "pair" not in other["result"]


def test_the_scoresheet_has_a_column_per_pair_with_each_partners_share():
    people = make_players(*NAMES)
    game = finished_game(people, ruleset="goat-pairs", options={**FAST, "limit": 40}, seed=4)
    model = table_model(game=game, user=people[0])
    sheet = model["scoresheet"]
    state = selectors.game_state(game=game)
    assert [c["seats"] for c in sheet["columns"]] == [[0, 2], [1, 3]]
    assert parts_text(sheet["columns"][0]["head"]) == "masha and olya"
    assert parts_text(sheet["columns"][1]["head"]) == "alex and kolyan"
    for row, record in zip(sheet["rows"], state.rounds, strict=True):
        assert len(row["cells"]) == 2
        for cell, (a, b) in zip(row["cells"], ((0, 2), (1, 3)), strict=True):
            assert cell["round_points"] == record.round_points[a]
            assert cell["shown_share"] == f"{NAMES[a]} {record.hands[a]} · {NAMES[b]} {record.hands[b]}"
    assert [t["points"] for t in sheet["totals"]] == state.points[:2]
    result = state.result
    goats = " and ".join(NAMES[s] for s in sorted(result.goats)[:2])
    assert parts_text(model["result"]["goats"]).startswith(f"Goats: {goats} (")


def test_the_result_says_kozly_masha_i_kolyan_in_russian():
    people = make_players(*NAMES)
    game = finished_game(people, ruleset="goat-pairs", options={**FAST, "limit": 40}, seed=4)
    state = selectors.game_state(game=game)
    with translation.override("ru"):
        model = table_model(game=game, user=people[0])
    goats = sorted(state.result.goats)
    text = parts_text(model["result"]["goats"])
    assert text.startswith(f"Козлы: {NAMES[goats[0]]} и {NAMES[goats[1]]} (")
    assert "очк" in text  # the margin, in words with its plural


def test_the_partner_is_marked_at_the_table_and_their_hand_is_hidden():
    people = make_players(*NAMES)
    game = start_game(people, ruleset="goat-pairs", options=FAST)
    model = table_model(game=game, user=people[0])
    seats = model["seats"]
    assert [s["partner"] for s in seats] == [False, False, True, False]
    assert [s["team"] for s in seats] == [0, 1, 0, 1]
    assert "your partner" in seats[2]["tags"] and "pair 1" in seats[2]["tags"]
    client = token_client(people[0])
    view = client.get(f"/api/games/{game.pk}/").json()
    state = selectors.game_state(game=game)
    assert set(view["hand"]) == set(state.hands_str()[0])
    body = "".join(client.get(f"/api/games/{game.pk}/{path}").content.decode() for path in ("", "events/"))
    for tile in state.hands_str()[2]:  # the partner's tiles: nowhere in what masha is sent
        low, high = tile.split("-")
        assert f'"{tile}"' not in body and f'"{high}-{low}"' not in body


def test_a_joiner_chooses_a_seat_and_so_a_partner():
    """A goat-pairs table in the lobby: the seat taken chooses the partner (the seat opposite); a seat
    someone holds is 409 seat_taken, a seat the game lacks 422 invalid_seat; nothing is stored by a
    refusal."""
    masha, alex, olya, kolyan = make_players(*NAMES)
    created = token_client(masha).post("/api/games/", {"ruleset": "goat-pairs", "seats": 4, "options": FAST},
                                       format="json").json()
    url = f"/api/games/{created['id']}/join/"
    joined = token_client(olya).post(url, {"seat": 2}, format="json")
    assert joined.status_code == 200, joined.content
    assert joined.json()["your_seat"] == 2
    assert_problem(token_client(alex).post(url, {"seat": 2}, format="json"), 409, "seat_taken")
    assert_problem(token_client(alex).post(url, {"seat": 4}, format="json"), 400, "invalid")
    version = Game.objects.get(pk=created["id"]).version
    assert token_client(kolyan).post(url, {"seat": 3}, format="json").json()["your_seat"] == 3
    assert token_client(alex).post(url, {}, format="json").json()["your_seat"] == 1
    view = token_client(olya).get(f"/api/games/{created['id']}/").json()
    assert view["status"] == "running" and [s["player"] for s in view["seats"]] == list(NAMES)
    assert Game.objects.get(pk=created["id"]).version > version


def test_a_chosen_seat_the_game_lacks_is_refused():
    masha, alex = make_players("masha", "alex")
    created = token_client(masha).post("/api/games/", {"ruleset": "goat-classic", "seats": 2, "options": FAST},
                                       format="json").json()
    response = token_client(alex).post(f"/api/games/{created['id']}/join/", {"seat": 3}, format="json")
    assert_problem(response, 422, "invalid_seat")
    assert Game.objects.get(pk=created["id"]).seat_set.count() == 1
