"""The scoreboard page's words in the board's languages (``[scoreboard] languages``), served as ``/words.json``.

The page (``controller/ui/static/scoreboard.html``) holds no text of its own but an English fallback: it
asks the server for ``/words.json`` and writes each word in the first language with the second under it,
as Macau boards do. Every word is a catalogue message (docs/languages.md); ``{name}`` placeholders are
filled in by the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from controller.i18n.catalogue import Catalogue
from controller.i18n.message import message
from controller.terms import MODE_WORDS
from controller.ui.roads import responsible_gaming_lines

PAGE_WORDS: Final = {
    "title": message("scoreboard.title", "Croupier scoreboard"),
    "baccarat": message("scoreboard.baccarat", "BACCARAT"),
    "shoe_number": message("scoreboard.shoe_number", "Shoe {shoe}"),
    "game_number": message("scoreboard.game_number", "Game {game}"),
    "connecting": message("scoreboard.connecting", "connecting…"),
    "live": message("scoreboard.live", "live"),
    "shoe_closed": message("scoreboard.shoe_closed", "SHOE CLOSED"),
    "reconnecting": message("scoreboard.reconnecting", "controller offline: reconnecting…"),
    "offline": message("scoreboard.offline", "CONTROLLER OFFLINE"),
    "offline_warning": message("scoreboard.offline_warning", "These results are not live: do not bet on this board"),
    "big_road": message("scoreboard.big_road", "Big road"),
    "bead_plate": message("scoreboard.bead_plate", "Bead plate"),
    "big_eye_boy": message("scoreboard.big_eye_boy", "Big eye boy"),
    "small_road": message("scoreboard.small_road", "Small road"),
    "cockroach_pig": message("scoreboard.cockroach_pig", "Cockroach pig"),
    "shoe": message("scoreboard.shoe", "Shoe"),
    "last_results": message("scoreboard.last_results", "Last results"),
    "legend": message("scoreboard.legend", "Legend"),
    "banker": message("scoreboard.banker", "Banker"),
    "player": message("scoreboard.player", "Player"),
    "tie": message("scoreboard.tie", "Tie"),
    "B": message("scoreboard.letter.banker", "B"),
    "P": message("scoreboard.letter.player", "P"),
    "T": message("scoreboard.letter.tie", "T"),
    "tie_on_big_road": message("scoreboard.tie_on_big_road", "Tie on a big-road cell"),
    "banker_pair": message("scoreboard.banker_pair", "Banker pair"),
    "player_pair": message("scoreboard.player_pair", "Player pair"),
    "natural": message("scoreboard.natural", "Natural"),
    "latest_result": message("scoreboard.latest_result", "Latest result"),
    "naturals": message("scoreboard.naturals", "Naturals"),
    "rounds": message("scoreboard.rounds", "Rounds"),
    "cards_left": message("scoreboard.cards_left", "Cards left"),
    "cut_card": message("scoreboard.cut_card", "Cut card"),
    "cut_card_out": message("scoreboard.cut_card_out", "out: last rounds"),
    "not_yet": message("scoreboard.not_yet", "not yet"),
    "closed": message("scoreboard.closed", "closed"),
    "result_natural": message("scoreboard.result.natural", "natural"),
    "result_banker_pair": message("scoreboard.result.banker_pair", "banker pair"),
    "result_player_pair": message("scoreboard.result.player_pair", "player pair"),
    "mode_simulation": MODE_WORDS["simulation"],
    "mode_training": MODE_WORDS["training"],
}
"""Each word of the page by its key, as a catalogue message (placeholders left for the page to fill)."""


def page_words(words: Catalogue) -> dict[str, str]:
    """Each word of the page, by its key, in ``words``' language (``{placeholders}`` unfilled)."""
    return {key: words.texts.get(word.id) or word.text for key, word in PAGE_WORDS.items()}


def words_message(catalogues: Sequence[Catalogue]) -> dict[str, Any]:
    """``/words.json``: ``{"languages": ["zh_Hant", "en"], "words": {"big_road": ["大路", "Big road"], ...}}``:
    each word in every board language, the first language first; ``responsible_gaming``: the footer's lines
    (``[{"lang": "zh_Hant", "text": "..."}, ...]``, :func:`~controller.ui.roads.responsible_gaming_lines`)."""
    worded = [page_words(catalogue) for catalogue in catalogues]
    return {"languages": [catalogue.language for catalogue in catalogues],
            "words": {key: [texts[key] for texts in worded] for key in worded[0]},
            "responsible_gaming": [{"lang": language, "text": text}
                                   for language, text in responsible_gaming_lines(catalogues)]}
