"""A critical alert stops the table (issue 28 item 1): no card is dealt until it is acknowledged.

An unshuffled shoe or a repeated sequence says "stop and call surveillance"; the table must not go on dealing
meanwhile. While such an alert is open (under an edition whose :attr:`~controller.core.editions.Edition.
critical_alert_stops`), every input that would deal or move the round is refused with a ``rejected`` event naming
the alert; a card that leaves the shoe all the same is set aside (it is out of the shoe, never dealt). The alert is
released by acknowledging it (``@ack ID``; with badges, a supervisor's). Warnings never stop the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from controller.core.alerts import AlertBook
from controller.core.approvals import rejected
from controller.core.cards import parse_card
from controller.core.events import AlertEvent, InstructionEvent
from controller.core.exceptions import CardCodeError
from controller.core.inputs import Input, InputKind
from controller.core.misdeals import SHOE_CARD, UNIDENTIFIED, Held
from controller.i18n.message import Message, message

if TYPE_CHECKING:
    from controller.core.state import Context
    from controller.core.step import Draft

GOES_ON_WHILE_STOPPED = frozenset({
    InputKind.ACK, InputKind.UNDO, InputKind.CUT, InputKind.CLOSE, InputKind.OFFLINE, InputKind.ONLINE,
    InputKind.BADGE, InputKind.BADGE_REMOVED, InputKind.SIGN_OUT, InputKind.PROPERTY_REPEAT,
    InputKind.PROPERTY_OFF,
})
"""What a stopped table still takes: the release, the reader's news, badges, the cut card, an early close."""
READ_CARDS = {InputKind.CARD: 1, InputKind.UNREADABLE: 1, InputKind.DOUBLE: 2}
"""The inputs that say cards left the shoe, and how many."""


class Alerted(Protocol):
    @property
    def alerts(self) -> AlertBook: ...


def stopping_alert(shown: Alerted, context: Context) -> AlertEvent | None:
    """The oldest open critical alert, which stops the table; None when nothing stops it."""
    if not context.edition.critical_alert_stops:
        return None
    for alert in shown.alerts.open:
        if alert.severity == "critical":
            return alert
    return None


def stopped_words(alert: AlertEvent) -> Message:
    """Why the table takes no card: the alert, and how it is released."""
    return message("stopped.critical", "Stopped on critical alert {id} ({kind}): call surveillance; no card is "
                   "dealt until the alert is released (@ack {id})", id=alert.id, kind=alert.kind)


def refuse_while_stopped(draft: Draft, item: Input, alert: AlertEvent) -> None:
    """Refuse ``item``: the table is stopped on ``alert``. A card that left the shoe is set aside."""
    count_out = READ_CARDS.get(item.kind, 0)
    if count_out:
        held: list[Held] = [("??", UNIDENTIFIED)] * count_out
        if item.kind is InputKind.CARD:
            held = _read(draft, item.card or "")
        draft.ledger, _ = draft.ledger.set_aside(held)
    draft.events.append(rejected(item, stopped_words(alert)))


def _read(draft: Draft, text: str) -> list[Held]:
    """What a card read while stopped is: a card of the shoe (counted), one of no shoe, or no card at all."""
    from controller.core.dealing import count as count_card

    try:
        card = parse_card(text)
    except CardCodeError:
        return [(text, UNIDENTIFIED)]
    if draft.ledger.is_foreign(card, draft.unread_held() if draft.misdeal is not None else 0):
        draft.ledger = draft.ledger.with_foreign(card.code)
        return []
    count_card(draft, card)
    return [(card.code, SHOE_CARD)]


def stopped_instruction(draft: Draft, alert: AlertEvent) -> InstructionEvent:
    """What the dealer is told while the table is stopped."""
    from controller.core.view import instruction_event

    return instruction_event(draft, "release_alert", stopped_words(alert))
