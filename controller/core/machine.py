"""The round machine: its states, its one table of transitions, its named guards, and the round's state.

:data:`TRANSITIONS` is the one table of the dealing flow: each :class:`Row` moves the round from a state to
another on a trigger, when its guard (a named, side-effect-free predicate of :class:`RoundState` and the
house's :class:`Rules`, reading the rules table :mod:`controller.core.rules`) holds. The first row whose guard
holds wins; a trigger with no such row is not allowed (:func:`may`). A halt is not a state of this flow: it is
an overlay beside it (the table's pending misdeal), so the round keeps its state while halted and goes on from
it when the halt is resolved.

The table core looks its rows up in a dictionary compiled from :data:`TRANSITIONS` (:func:`fire`): a card costs
one lookup and a guard call. The ``transitions`` library builds the same table into a machine
(:func:`build_machine`) that ``croupier diagram`` draws (:func:`mermaid`) and that a test drives side by side
with :func:`fire` (``tests/controller/core/test_machine.py``). Measured on this machine, a ``transitions``
trigger costs about 6 us and a lookup here well under one, on a path of six triggers a round
(``docs/performance.md``, "The round machine").
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import msgspec

from controller.core import rules
from controller.core.cards import Card, hand_total
from controller.core.events import Side

if TYPE_CHECKING:
    from transitions import Machine


class State(enum.Enum):
    """Where the round is: a slot due, or a phase of the shoe; and HALTED, the overlay of a pending misdeal."""

    NEW_SHOE = "new_shoe"
    """Waiting for the dealer to confirm the shoe is shuffled, cut and loaded."""
    BURN_TURN = "burn_turn"
    """The first card is due, to be turned for the burn."""
    BURNING = "burning"
    """Burn cards are due."""
    P1 = "P1"
    B1 = "B1"
    P2 = "P2"
    B2 = "B2"
    P3 = "P3"
    B3 = "B3"
    HANDS_DOWN = "hands_down"
    """Face down in a squeeze game: both two-card hands are down; the third-card decision waits for their reveals."""
    THIRD_DOWN = "third_down"
    """Face down in a squeeze game: the player's third card is down; the banker's decision waits for its reveal."""
    ROUND_OVER = "round_over"
    """The round is settled; the dealer starts the next one."""
    SHOE_CLOSED = "shoe_closed"
    """The cut card's last round is over; no card may be dealt from this shoe."""
    HALTED = "halted"
    """A misdeal is pending; only its resolutions are accepted. Not a state of the dealing flow: the table shows it
    while its round keeps the state it was halted in."""

    __hash__ = object.__hash__
    """Members are singletons compared by identity; hashing by identity keeps lookups cheap."""


SLOTS: Final = (State.P1, State.B1, State.P2, State.B2, State.P3, State.B3)
SLOT_SET: Final = frozenset(SLOTS)
SQUEEZE_STATES: Final = frozenset({State.HANDS_DOWN, State.THIRD_DOWN})
"""Face down, a squeeze game: cards are down and the next decision waits for their reveals."""
IN_ROUND: Final = SLOT_SET | SQUEEZE_STATES
"""The states of a round being dealt: a slot due, or a reveal the next card waits for."""
SLOT_SIDE: Final[dict[State, Side]] = {State.P1: "player", State.P2: "player", State.P3: "player",
                                      State.B1: "banker", State.B2: "banker", State.B3: "banker"}
BURN_STATES: Final = (State.BURN_TURN, State.BURNING)
SHUFFLE_STATES: Final = (State.NEW_SHOE, State.SHOE_CLOSED)
FLOW_STATES: Final = tuple(state for state in State if state is not State.HALTED)
"""The states of the dealing flow (every state but the HALTED overlay)."""


class Rules(msgspec.Struct, frozen=True, gc=False):
    """What the guards read of the house's settings."""

    burn: str = "first_card"
    """``[shoe] burn``: ``first_card``, ``fixed`` or ``none``."""
    squeeze: bool = False
    """Face-down dealing in a squeeze game: the hands are revealed before a third card is called."""
    count_every: int = 0
    """``[procedures] count_every``: the dealer counts the stub every this many rounds (0: never)."""


class RoundState(msgspec.Struct, frozen=True, gc=False):
    """The round's state: where the machine is and what its guards read."""

    state: State = State.NEW_SHOE
    number: int = 0
    """The round's number in the shoe session (0 before the first)."""
    player: tuple[Card, ...] = ()
    banker: tuple[Card, ...] = ()
    burn_remaining: int = 0
    last_round: int | None = None
    """The last round the cut card allows, once it is out."""
    uncounted: int = 0
    """Rounds over in this shoe since the stub was last counted (kept only with ``[procedures] count_every``)."""

    @property
    def player_two_card_total(self) -> int:
        return hand_total(self.player[:2])

    @property
    def banker_two_card_total(self) -> int:
        return hand_total(self.banker[:2])

    @property
    def natural(self) -> bool:
        return rules.is_natural(self.player_two_card_total) or rules.is_natural(self.banker_two_card_total)

    @property
    def player_third_value(self) -> int | None:
        return self.player[2].value if len(self.player) == 3 else None


Guard = Callable[[RoundState, Rules], bool]


# -- guards (named, side-effect free) ------------------------------------------------------------------------
def burns_first_card(round_state: RoundState, house: Rules) -> bool:
    """The house turns the first card and burns its value."""
    return house.burn == "first_card"


def burns_fixed(round_state: RoundState, house: Rules) -> bool:
    """The house burns a fixed number of cards."""
    return house.burn == "fixed"


def more_to_burn(round_state: RoundState, house: Rules) -> bool:
    """Burn cards are still due."""
    return round_state.burn_remaining > 0


def player_draws(round_state: RoundState, house: Rules) -> bool:
    """No natural, and the player's two-card total draws (0-5)."""
    return rules.player_draws(round_state.player_two_card_total, round_state.banker_two_card_total)


def banker_draws(round_state: RoundState, house: Rules) -> bool:
    """No natural, and the tableau says the banker draws."""
    if round_state.natural:
        return False
    return rules.banker_draws(round_state.banker_two_card_total, round_state.player_third_value)


def squeezes(round_state: RoundState, house: Rules) -> bool:
    """Face down, the hands dealt so far are revealed before the next third-card decision."""
    return house.squeeze


def cut_card_rounds_done(round_state: RoundState, house: Rules) -> bool:
    """The cut card is out and the last round it allows is over."""
    return round_state.last_round is not None and round_state.number >= round_state.last_round


def stub_count_due(round_state: RoundState, house: Rules) -> bool:
    """The house counts the stub every ``count_every`` rounds, and that many are over since the last count."""
    return 0 < house.count_every <= round_state.uncounted


def stub_counted(round_state: RoundState, house: Rules) -> bool:
    """No stub count is due before the next round."""
    return not stub_count_due(round_state, house)


GUARDS: Final[dict[str, Guard]] = {guard.__name__: guard for guard in (
    burns_first_card, burns_fixed, more_to_burn, player_draws, banker_draws, squeezes, cut_card_rounds_done,
    stub_count_due, stub_counted)}
"""Every guard, by the name the table of transitions gives it."""


@dataclass(frozen=True, slots=True)
class Row:
    """One transition: ``trigger`` moves the round from each ``source`` state to ``dest`` when ``guard`` holds."""

    trigger: str
    source: tuple[State, ...]
    dest: State
    guard: str | None = None

    @property
    def starts_round(self) -> bool:
        """The row begins a new round (it enters P1)."""
        return self.dest is State.P1


def _row(trigger: str, source: State | tuple[State, ...], dest: State, guard: str | None = None) -> Row:
    return Row(trigger, source if isinstance(source, tuple) else (source,), dest, guard)


TRANSITIONS: Final = (
    # the shoe
    _row("shoe_ready", SHUFFLE_STATES, State.BURN_TURN, "burns_first_card"),
    _row("shoe_ready", SHUFFLE_STATES, State.BURNING, "burns_fixed"),
    _row("shoe_ready", SHUFFLE_STATES, State.P1),
    _row("card", State.BURN_TURN, State.BURNING, "more_to_burn"),
    _row("card", State.BURN_TURN, State.P1),
    _row("card", State.BURNING, State.BURNING, "more_to_burn"),
    _row("card", State.BURNING, State.P1),
    # the round: P1 B1 P2 B2, then the third-card rules
    _row("card", State.P1, State.B1),
    _row("card", State.B1, State.P2),
    _row("card", State.P2, State.B2),
    _row("card", State.B2, State.HANDS_DOWN, "squeezes"),
    _row("card", State.B2, State.P3, "player_draws"),
    _row("card", State.B2, State.B3, "banker_draws"),
    _row("card", State.B2, State.ROUND_OVER),
    _row("card", State.P3, State.THIRD_DOWN, "squeezes"),
    _row("card", State.P3, State.B3, "banker_draws"),
    _row("card", State.P3, State.ROUND_OVER),
    _row("card", State.B3, State.ROUND_OVER),
    # a squeeze game: the third-card decisions once the cards down are revealed
    _row("revealed", State.HANDS_DOWN, State.P3, "player_draws"),
    _row("revealed", State.HANDS_DOWN, State.B3, "banker_draws"),
    _row("revealed", State.HANDS_DOWN, State.ROUND_OVER),
    _row("revealed", State.THIRD_DOWN, State.B3, "banker_draws"),
    _row("revealed", State.THIRD_DOWN, State.ROUND_OVER),
    _row("close_shoe", State.ROUND_OVER, State.SHOE_CLOSED, "cut_card_rounds_done"),
    # the stub counted between rounds ([procedures] count_every): the round over waits for it
    _row("count_stub", State.ROUND_OVER, State.ROUND_OVER, "stub_count_due"),
    _row("next_round", State.ROUND_OVER, State.P1, "stub_counted"),
    # a round voided while halted ends where it stood
    _row("void_round", (*SLOTS, State.HANDS_DOWN, State.THIRD_DOWN), State.ROUND_OVER),
)
"""The dealing flow, one row per transition, in the order the rows are tried."""

TRIGGERS: Final = tuple(dict.fromkeys(row.trigger for row in TRANSITIONS))

HALT_OVERLAY: Final = (("halt", "a misdeal is raised: the round keeps its state"),
                       ("resume", "the misdeal is resolved: the round goes on from its state"))
"""The overlay's one pair of moves, drawn beside the flow (a halt is the table's pending misdeal)."""

_Compiled = tuple[tuple[Guard | None, Row], ...]


def _compile() -> dict[tuple[State, str], _Compiled]:
    table: dict[tuple[State, str], list[tuple[Guard | None, Row]]] = {}
    for row in TRANSITIONS:
        guard = GUARDS[row.guard] if row.guard is not None else None
        for source in row.source:
            table.setdefault((source, row.trigger), []).append((guard, row))
    return {key: tuple(rows) for key, rows in table.items()}


_TABLE: Final = _compile()


def fire(trigger: str, round_state: RoundState, house: Rules) -> Row | None:
    """The row ``trigger`` takes from ``round_state`` (the first whose guard holds), or None when not allowed."""
    for guard, row in _TABLE.get((round_state.state, trigger), ()):
        if guard is None or guard(round_state, house):
            return row
    return None


def may(trigger: str, round_state: RoundState, house: Rules) -> bool:
    """``may_<trigger>``: may ``trigger`` fire from ``round_state``?"""
    return fire(trigger, round_state, house) is not None


DEALING: Final = frozenset(source for row in TRANSITIONS if row.trigger == "card" for source in row.source)
"""The states in which a card is due (a slot or a burn card): those with a ``card`` transition."""


# -- the same table in the transitions library: the diagram, and a second implementation for the tests -------
class DiagramModel:
    """A model for :func:`build_machine`: its guards read :attr:`round` and :attr:`rules` through :data:`GUARDS`."""

    state: str

    def __init__(self, round_state: RoundState | None = None, house: Rules | None = None) -> None:
        self.round = round_state if round_state is not None else RoundState()
        self.rules = house if house is not None else Rules()

    def check(self, guard: str) -> bool:
        """Guard ``guard`` of the round and rules the model holds."""
        return GUARDS[guard](self.round, self.rules)

    def __getattr__(self, name: str) -> Any:
        if name in GUARDS:
            return lambda: self.check(name)
        raise AttributeError(name)


def build_machine(model: DiagramModel | None = None, initial: State = State.NEW_SHOE) -> Machine:
    """:data:`TRANSITIONS` as a ``transitions`` machine over ``model`` (no auto transitions, guards by name; the
    library is imported only here: the table looks its rows up itself)."""
    from transitions import Machine

    rows = [{"trigger": row.trigger, "source": [state.name for state in row.source], "dest": row.dest.name,
             **({"conditions": row.guard} if row.guard else {})} for row in TRANSITIONS]
    return Machine(model=model if model is not None else DiagramModel(),
                   states=[state.name for state in FLOW_STATES], transitions=rows, initial=initial.name,
                   auto_transitions=False, ignore_invalid_triggers=True)


def mermaid(machine: Machine | None = None) -> str:
    """The machine as a Mermaid state diagram, read from the ``transitions`` machine itself, with the halt
    overlay's one pair of moves beside the flow."""
    if machine is None:
        machine = build_machine()
    lines = ["stateDiagram-v2", f"    [*] --> {State.NEW_SHOE.name}"]
    for trigger, event in machine.events.items():
        for source, transitions in event.transitions.items():
            for transition in transitions:
                guards = [
                    (condition.func if isinstance(condition.func, str) else condition.func.__name__)
                    + ("" if condition.target else " is false")
                    for condition in transition.conditions
                ]
                label = trigger + (f" [{', '.join(guards)}]" if guards else "")
                lines.append(f"    {source} --> {transition.dest} : {label}")
    (halt, halt_note), (resume, resume_note) = HALT_OVERLAY
    lines += [f"    DEALING --> {State.HALTED.name} : {halt} [{halt_note}]",
              f"    {State.HALTED.name} --> DEALING : {resume} [{resume_note}]",
              "    note right of DEALING : DEALING is any state above: a halt is an overlay, the round keeps its state"]
    return "\n".join(lines) + "\n"
