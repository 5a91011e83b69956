"""The misdeal policy: every kind, its resolutions (house default first), who may approve them,
and what is set aside until the halt is resolved.

:data:`POLICIES` is the one table; the table core raises misdeals from it and
``docs/procedures.md``'s "Dealing errors" table is checked against it
(``tests/test_docs.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

import msgspec

from config.schema import ProcedureSettings
from controller.core.cards import Card
from controller.core.chain import Chain
from controller.core.events import MisdealEvent
from controller.core.inputs import InputKind
from controller.i18n.message import Message, message
from controller.terms import ApprovalAction, MisdealKind, Resolution

SHOE_RESTARTED: MisdealKind = "shoe_restarted"
"""The reason a reader gives with ``OFFLINE`` when the shoe restarted (its sequence numbers fell back)."""
SEQUENCE_GAP: MisdealKind = "sequence_gap"
"""The reason a reader gives with ``OFFLINE`` when messages of the shoe never arrived (its sequence numbers
skipped): written ``sequence_gap LAST NEXT`` (:func:`sequence_gap`)."""


def sequence_gap(last: int, following: int) -> str:
    """The ``OFFLINE`` reason for a shoe whose message after ``last`` was ``following``: those between never came."""
    return f"{SEQUENCE_GAP} {last} {following}"


def gap_of(reason: str | None) -> tuple[int, int] | None:
    """``(last, next)`` of a :func:`sequence_gap` reason; None for any other reason."""
    kind, _, numbers = (reason or "").partition(" ")
    last, _, following = numbers.partition(" ")
    if kind != SEQUENCE_GAP or not last.isdecimal() or not following.isdecimal():
        return None
    return int(last), int(following)


SHOE_CARD = "shoe"
UNIDENTIFIED = "unidentified"
FOREIGN = "foreign"
Held = tuple[str, str]
"""A card out of the shoe and set aside while halted: (what was read, SHOE_CARD/UNIDENTIFIED/FOREIGN)."""

RESOLUTION_INPUTS: dict[InputKind, Resolution] = {
    InputKind.BURN: "burn",
    InputKind.VOID: "void",
    InputKind.USE: "use",
    InputKind.MANUAL: "manual",
    InputKind.ONLINE: "online",
    InputKind.COUNT: "count",
    InputKind.CLOSE: "close",
}
"""The dealer input that gives each resolution."""

SAY_RESOLUTION = {
    "burn": message("resolution.burn", "burn the card(s) and continue"),
    "void": message("resolution.void", "void the round, bets returned"),
    "use": message("resolution.use", "keep the card where it was dealt"),
    "manual": message("resolution.manual", "enter the card by hand"),
    "online": message("resolution.online", "reconnect the reader"),
    "count": message("resolution.count", "count the stub again and key the number"),
    "close": message("resolution.close", "close the shoe"),
}
"""What each resolution does, as the dealer is told it."""
HALT = message("misdeal.halt", "Halt: {choices}")
"""The start of a misdeal's instruction; ``choices`` are the resolutions, each :data:`RESOLUTION_CHOICE`."""
RESOLUTION_CHOICE = message("misdeal.choice", "{what} (@{resolution})")
CHOICES_JOINED = message("misdeal.or", "; or ")
WHILE_HALTED = message("misdeal.while_halted", "{detail} (while halted)")

class MisdealPolicy(msgspec.Struct, frozen=True, gc=False):
    """One kind of misdeal: how it may be resolved and what it sets aside."""

    kind: MisdealKind
    resolutions: tuple[Resolution, ...]
    """The resolutions offered, the house default first."""
    sets_aside: str
    """What is held while halted, and burned or removed by the resolution."""
    source: str
    """The regulators' or houses' rule the resolutions follow, as ``docs/procedures.md`` cites it
    (``tests/test_docs.py`` checks the two agree)."""
    house_option: str | None = None
    """The ``[procedures]`` key naming the house's first choice, when the house picks it."""
    approval_actions: tuple[tuple[str, ApprovalAction], ...] = ()
    """(resolution, action) pairs whose approval is asked for under another action name."""
    replaces_due_card: bool = False
    """The misdeal is about the due card itself: a manual entry stands in for it."""

    def resolutions_for(self, procedures: ProcedureSettings) -> list[Resolution]:
        """The resolutions offered at this house: the ``house_option`` choice moved first."""
        if self.house_option is None:
            return list(self.resolutions)
        chosen: Resolution = getattr(procedures, self.house_option)
        return list(dict.fromkeys([chosen, *self.resolutions]))

    def approval_action(self, resolution: str) -> str:
        """The action name an approval of ``resolution`` is given for."""
        return dict(self.approval_actions).get(resolution, resolution)


_DEVICE_MALFUNCTION = "dealing device malfunction: Australian mini-baccarat rule 12"
POLICIES: dict[MisdealKind, MisdealPolicy] = {policy.kind: policy for policy in (
    MisdealPolicy("extra_card", ("burn", "void"), "the card read",
                  source="extra card called for a hand: BOME Melilla 2014; cards drawn before betting closed: "
                         "BOME Melilla 2014; La. Admin. Code 42 III-3106(C)",
                  house_option="extra_card"),
    MisdealPolicy("exposed_card", ("burn", "use", "void"), "the exposed card, taken back from its slot",
                  source="La. Admin. Code 42 III-3106(C) (burned); a card out face up, removed and not used: BOME "
                         "Melilla 22-09-2014 p. 358 (analogue); Macau DICJ (coup stays valid)",
                  house_option="exposed_card"),
    MisdealPolicy("unreadable_card", ("manual", "burn", "void"), "the unread card", source=_DEVICE_MALFUNCTION,
                  replaces_due_card=True),
    MisdealPolicy("unknown_card", ("manual", "burn", "void"), "the code as read", source=_DEVICE_MALFUNCTION,
                  replaces_due_card=True),
    MisdealPolicy("foreign_card", ("void",), "the foreign card",
                  source='shoe inventory practice; "any other dealer fault": BOME Melilla 2014',
                  approval_actions=(("void", "foreign_card"),)),
    MisdealPolicy("two_cards", ("void",), "both unread cards",
                  source="two or more cards stuck together: coup void, BOME Melilla 2014"),
    MisdealPolicy("reader_offline", ("online", "void"), "nothing", source=_DEVICE_MALFUNCTION),
    MisdealPolicy("card_after_shoe_closed", ("burn",), "the card read",
                  source="French arrete art. 58 (no further coup)"),
    MisdealPolicy("no_dealer", ("burn", "void"), "the card read, or the unread ones",
                  source='"anything unresolved: the supervisor rules" (live-dealer practice)'),
    MisdealPolicy("shoe_restarted", ("void",), "nothing", source=_DEVICE_MALFUNCTION),
    MisdealPolicy("sequence_gap", ("void",), "nothing", source=_DEVICE_MALFUNCTION),
    MisdealPolicy("reveal_mismatch", ("void",), "nothing (the cards stay on the layout for the supervisor)",
                  source="the reveal-confirmed result of card-reading shoes (Angel Eye); Macau squeeze games dealt "
                         "face down"),
    MisdealPolicy("count_mismatch", ("count", "close"), "nothing (the stub stays in the shoe for the supervisor)",
                  source="N.J.A.C. 13:69F-35.9(e) (the stub counted to confirm the card count)",
                  approval_actions=(("close", "close_shoe"),)),
)}
"""Every misdeal kind the table raises."""
_BY_NAME: dict[str, MisdealPolicy] = {str(kind): policy for kind, policy in POLICIES.items()}


def approval_action(resolution: str, kind: str | None) -> str:
    """The action name an approval is given for (``void``, ``manual``, ``foreign_card``, ``close_shoe``)."""
    policy = _BY_NAME.get(kind) if kind is not None else None
    return policy.approval_action(resolution) if policy is not None else resolution


def needs_supervisor(resolution: str, kind: str | None, supervisor_only: Collection[str]) -> bool:
    """Does ``resolution`` (of a misdeal of ``kind``) need a supervisor's approval?"""
    return approval_action(resolution, kind) in supervisor_only


def instruction(resolutions: Iterable[str], text: Callable[[Message], str] = Message.english) -> str:
    """What the dealer is told when the table halts: each resolution and its input (in the language of
    ``text``, English by default)."""
    choices = text(CHOICES_JOINED).join(
        text(message(RESOLUTION_CHOICE.id, RESOLUTION_CHOICE.text, what=text(SAY_RESOLUTION[r]), resolution=r))
        for r in resolutions)
    return text(message(HALT.id, HALT.text, choices=choices))


class Misdeal(msgspec.Struct, frozen=True, gc=False):
    """A pending misdeal, as a value: what happened, how it may be resolved, and the cards set aside meanwhile."""

    kind: MisdealKind
    round: int
    card: str | None
    detail: Message
    instruction: str
    resolutions: tuple[Resolution, ...]
    supervisor: tuple[Resolution, ...] = ()
    """The resolutions that need a supervisor's approval."""
    while_halted: bool = False
    """Raised while the table was already halted on another misdeal (which it is reported with)."""
    held: Chain[Held] = msgspec.field(default_factory=Chain)
    """Cards out of the shoe while halted, to be burned or removed by the resolution."""
    replaces_due_card: bool = False
    """The misdeal is about the due card itself (unreadable, unknown): a manual entry stands in for it."""
    exposed: Card | None = None
    """An exposed card taken back from its slot (``use`` puts it back)."""
    exposed_manual: bool = False
    unread_held: int = 0
    """How many of :attr:`held` are unread (UNIDENTIFIED), kept as they are held: a card read while halted
    costs the same however many the table holds (a flooding reader must not stall it)."""
    serial: int = 0
    """Which of the table's halts this is (an approval held for it lapses when another one is pending)."""

    @classmethod
    def of(cls, kind: MisdealKind, round_number: int, card: str | None, detail: Message, instruction_text: str,
           resolutions: Iterable[Resolution], supervisor: Iterable[Resolution] = (), held: Iterable[Held] = (),
           **more: object) -> Misdeal:
        """A misdeal holding ``held``, its unread ones counted."""
        chain = Chain(held)
        return cls(kind, round_number, card, detail, instruction_text, tuple(resolutions), tuple(supervisor),
                   held=chain, unread_held=_unread(chain), **more)  # type: ignore[arg-type]

    def holding(self, cards: Iterable[Held]) -> Misdeal:
        """This misdeal holding ``cards`` too (cards out of the shoe while halted, until the resolution)."""
        cards = list(cards)
        if not cards:
            return self
        return msgspec.structs.replace(self, held=self.held.extended(cards),
                                       unread_held=self.unread_held + _unread(cards))

    def unread_left(self, stands_for_held: bool = False) -> int:
        """The unread cards held (they left the shoe too); ``stands_for_held``: a manual entry stands for the
        first of them, which then does not count."""
        first_stands = stands_for_held and bool(self.held) and self.held[0][1] == UNIDENTIFIED
        return self.unread_held - first_stands

    def event(self) -> MisdealEvent:
        detail = self.detail.english()
        event = MisdealEvent(round=self.round, kind=self.kind, card=self.card,
                             detail=WHILE_HALTED.text.format(detail=detail) if self.while_halted else detail,
                             say_id=self.detail.id, say_params=dict(self.detail.params), instruction=self.instruction,
                             resolutions=list(self.resolutions), supervisor=list(self.supervisor))
        if self.while_halted:
            event.while_halted = True
        return event


def _unread(cards: Iterable[Held]) -> int:
    return sum(1 for _, status in cards if status == UNIDENTIFIED)
