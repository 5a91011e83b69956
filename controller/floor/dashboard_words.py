"""The pit dashboard page's words in the floor's language (``croupier floor --lang``, ``[table] language``),
served as ``/words.json``.

The page (``controller/floor/static/floor.html``) keeps its English as the fallback when ``/words.json``
cannot be read; ``{name}`` placeholders are filled in by the page. The tiles' machine fields (``data-status``,
``data-winner``), misdeal and alert kinds and the tables' own texts (a result's ``say``, a misdeal's ``detail``:
in the table's language) are shown as they come.
"""

from __future__ import annotations

from typing import Any, Final

from controller.i18n.catalogue import Catalogue
from controller.i18n.kinds import KIND_WORDS, kind_name
from controller.i18n.message import message
from controller.terms import MODE_WORDS

DASHBOARD_WORDS: Final = {
    "title": message("dashboard.title", "Croupier floor"),
    "connecting": message("dashboard.connecting", "connecting"),
    "empty": message("dashboard.empty", "No table has reported yet."),
    "broker": message("dashboard.broker", "broker {broker}"),
    "broker_lost": message("dashboard.broker_lost", "broker {broker} lost"),
    "unreachable": message("dashboard.unreachable", "dashboard unreachable; reconnecting"),
    "no_card_yet": message("dashboard.no_card_yet", "no card yet"),
    "seconds_ago": message("dashboard.seconds_ago", "{seconds} s ago"),
    "minutes_ago": message("dashboard.minutes_ago", "{minutes} min {seconds} s ago"),
    "hours_ago": message("dashboard.hours_ago", "{hours} h {minutes} min ago"),
    "halted_in_round": message("dashboard.halted_in_round", "Halted in round {round}"),
    "left_halted_in_round": message("dashboard.left_halted_in_round", "Left halted in round {round}"),
    "shoe": message("dashboard.shoe", "Shoe"),
    "round": message("dashboard.round", "Round"),
    "card_due": message("dashboard.card_due", "Card due"),
    "last": message("dashboard.last", "Last"),
    "dealer": message("dashboard.dealer", "Dealer"),
    "no_dealer": message("dashboard.no_dealer", "none signed in"),
    "cards_left": message("dashboard.cards_left", "Cards left"),
    "stub_count_due": message("dashboard.stub_count_due", "Stub count due: {cards} cards"),
    "last_card": message("dashboard.last_card", "Last card"),
    "online": message("dashboard.status.online", "online"),
    "halted": message("dashboard.status.halted", "halted"),
    "closed": message("dashboard.status.closed", "closed"),
    "offline": message("dashboard.status.offline", "offline"),
    "count": message("dashboard.count", "{count} {status}"),
    "archived": message("dashboard.archived", "Archived"),
    "archived_up_to": message("dashboard.archived_up_to", "up to record {seq}"),
    "archived_waiting": message("dashboard.archived_waiting", "{count} waiting"),
    "archived_refused": message("dashboard.archived_refused", "{count} refused"),
    "archived_none": message("dashboard.archived_none", "no archive has it"),
    "no_archive": message("dashboard.no_archive", "no archive"),
    "archive_online": message("dashboard.archive_online", "archive {name}: lag {lag} s"),
    "archive_offline": message("dashboard.archive_offline", "archive {name} offline"),
    "archive_database_lost": message("dashboard.archive_database_lost", "archive {name}: database lost"),
    "lost": message("dashboard.status.lost", "lost"),
    "critical": message("dashboard.critical", "critical"),
    "warning": message("dashboard.warning", "warning"),
    "critical_count": message("dashboard.critical_count", "{count} critical alerts"),
    "warning_count": message("dashboard.warning_count", "{count} warnings"),
    "alert_line": message("dashboard.alert_line", "{severity} {kind}: {detail} ({age})"),
    "stopped_on_alert": message("dashboard.stopped_on_alert", "Stopped on critical alert {id}"),
    "lost_mid_round": message("dashboard.lost_mid_round", "Lost mid-round {round}: bets are on the layout"),
    "lost_between_rounds": message("dashboard.lost_between_rounds", "Lost between rounds, after round {round}"),
    "stopped_cleanly": message("dashboard.stopped_cleanly", "Closed normally after round {round}"),
    "archive_label": message("dashboard.archive_label", "Archive"),
    "archive_silent": message("dashboard.archive_silent", "archive {name}: silent for {seconds} s"),
    "idle": message("dashboard.idle", "idle"),
    "banker": message("scoreboard.letter.banker", "B"),
    "player": message("scoreboard.letter.player", "P"),
    "tie": message("scoreboard.letter.tie", "T"),
    "mode_simulation": MODE_WORDS["simulation"],
    "mode_training": MODE_WORDS["training"],
}
"""Each word of the page by its key, as a catalogue message (placeholders left for the page to fill)."""


def words_message(words: Catalogue) -> dict[str, Any]:
    """``/words.json``: ``{"language": "ko", "words": {"shoe": "슈", "seconds_ago": "{seconds}초 전", ...}}``."""
    kinds = {f"kind.{kind}": kind_name(kind, words) for kind in KIND_WORDS}
    return {"language": words.language,
            "words": {**{key: words.texts.get(word.id) or word.text for key, word in DASHBOARD_WORDS.items()},
                      **kinds}}
