"""The engine's refusals in the caller's language, translated here at the web boundary: the engine
(goat/engine) knows no Django and writes English.

A refusal's ``detail`` is translated by its words when the engine writes a fixed sentence
(``SENTENCES``); by its English template, filled with the error's parameters, when the engine built
it with ``said`` (``TEMPLATES``: an option, its bounds, an end, a seat); or rebuilt from its ``code``
and the parameters the engine passes with it (``error.context``) when the sentence names a tile, a
seat or an end (``BY_CODE``). A refusal that matches none keeps the engine's English. The ``code`` is
never translated. tests/web/test_i18n.py checks that every sentence and template of the engine's
player-facing refusals is here, translated.
"""

from __future__ import annotations

from django.utils.translation import gettext, gettext_lazy, gettext_noop, pgettext_lazy

from goat.games.words import RULESETS

#: the engine's fixed sentences (translated by their English words; the catalog holds them)
SENTENCES = (
    gettext_noop("The game is not running."),
    gettext_noop("You have no seat at this game."),
    gettext_noop("You already have a seat at this game."),
    gettext_noop("Every seat of this game is taken."),
    gettext_noop("This game is not waiting for players."),
    gettext_noop("The game has started; its seats can no longer be left."),
    gettext_noop("That seat is taken: choose a free one."),
    gettext_noop("This game has no such seat."),
    gettext_noop("This game has no move clock."),
    gettext_noop("options must be an object of option names to values."),
    gettext_noop("the redeal rule is only defined for hands of at most 7 tiles."),
    gettext_noop("fixed-rounds scoring needs option 'rounds'."),
)

#: the engine's templates (``RulesError.said``), translated by their English words and filled with the
#: error's ``context`` (``str.format``: a translation keeps the same ``{names}``)
TEMPLATES = (
    gettext_noop("the stored options are incomplete: {error}"),
    gettext_noop("option {option!r} cannot be null."),
    gettext_noop("option {option!r} must be true or false."),
    gettext_noop("option {option!r} must be one of: {choices}."),
    gettext_noop("option {option!r} must be a whole number from {lo} to {hi}."),
    gettext_noop("unknown ruleset {ruleset!r}; choose one of: {choices}."),
    gettext_noop("seats must be {lo} to {hi}."),
    gettext_noop("unknown option(s): {unknown}; known: {known}."),
    gettext_noop("hand_size {hand_size} x {seats} seats = {dealt} tiles, but a set has only 28."),
    gettext_noop("bazaar_reserve {reserve} is more than the {left} tiles left after the deal."),
    gettext_noop("goat scoring needs option {option!r}."),
    gettext_noop("cannot deal {hand_size} tiles to each of {seats} seats from {tiles} tiles."),
    gettext_noop('{end!r} is not an end of the line; say "left" or "right".'),
    gettext_noop("client_seed must be a string of at most {most} characters."),
    gettext_noop("{player!r} does not hold seat {seat}."),
    gettext_noop("{ruleset} is played by two pairs: seats must be {n}."),
    gettext_noop("{ruleset} does not take option {option!r} = {value!r}: it is {fixed!r}."),
)

#: code -> the sentence, with the parameters the engine passes along in ``error.context``; a code with
#: several sentences lists them, the first whose parameters the error carries is said
BY_CODE = {
    "tile_does_not_fit": [
        gettext_lazy("%(tile)s does not fit the %(end)s end (%(value)s)."),
        gettext_lazy("%(tile)s fits neither end of the line (%(left)s and %(right)s)."),
    ],
    "must_lead_with": gettext_lazy("This round must be opened with %(tile)s."),
    "tile_not_in_hand": gettext_lazy("You do not hold %(tile)s."),
    "not_your_turn": gettext_lazy("It is seat %(turn)s's turn, not seat %(seat)s's."),
    "invalid_tile": gettext_lazy("%(given)s is not a domino tile."),
    "end_required": gettext_lazy("%(tile)s fits both ends (%(left)s and %(right)s); say which end."),
}


#: the ends of the line, as a sentence names them ("the left end")
ENDS = {"left": pgettext_lazy("end of the line", "left"), "right": pgettext_lazy("end of the line", "right")}


def rules_detail(error) -> str:
    """``error``'s detail in the active language (see the module's docstring)."""
    template = getattr(error, "template", None)
    if template is not None:
        context = dict(error.context)
        if context.get("ruleset") in RULESETS:  # a player reads the ruleset's name, not its code
            context["ruleset"] = str(RULESETS[context["ruleset"]])
        try:
            return gettext(template).format(**context)
        except (KeyError, IndexError, ValueError):
            return error.detail  # a translation that names other parameters: the engine's English
    sentences = BY_CODE.get(error.code)
    params = dict(error.context)
    if params.get("end") in ENDS:
        params["end"] = str(ENDS[params["end"]])
    for template in sentences if isinstance(sentences, list) else [sentences] if sentences else []:
        try:
            return str(template) % params
        except (KeyError, TypeError, ValueError):
            continue  # the engine did not pass this sentence's parameters
    return gettext(error.detail)
