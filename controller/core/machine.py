"""The round state machine, built with ``transitions``.

States are :class:`State`; every transition is one row of :data:`TRANSITIONS`;
guards are named, side-effect-free predicates on :class:`RoundModel` that read
the rules table (:mod:`controller.core.rules`). ``auto_transitions`` is off, so the
machine can only move along the rows below. ``croupier diagram`` draws it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from transitions import Machine, Transition
from transitions import State as MachineState
from transitions.core import EventData

from controller.core import rules
from controller.core.cards import Card, hand_total
from controller.core.events import Side


class State(enum.Enum):
    """Where the table is: a slot due, or a phase of the shoe."""

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
    ROUND_OVER = "round_over"
    """The round is settled; the dealer starts the next one."""
    SHOE_CLOSED = "shoe_closed"
    """The cut card's last round is over; no card may be dealt from this shoe."""
    HALTED = "halted"
    """A misdeal is pending; only its resolutions are accepted."""

    __hash__ = object.__hash__
    """Members are singletons compared by identity; hashing by identity keeps lookups cheap."""


SLOTS = (State.P1, State.B1, State.P2, State.B2, State.P3, State.B3)
SLOT_SIDE: dict[State, Side] = {State.P1: "player", State.P2: "player", State.P3: "player",
                               State.B1: "banker", State.B2: "banker", State.B3: "banker"}
BURN_STATES = (State.BURN_TURN, State.BURNING)
RESUMABLE = tuple(state for state in State if state is not State.HALTED)
SHUFFLE_STATES = [State.NEW_SHOE, State.SHOE_CLOSED]


def _row(trigger: str, source: State | list[State], dest: State, guard: str | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"trigger": trigger, "source": source, "dest": dest}
    if guard is not None:
        row["conditions"] = guard
    return row


TRANSITIONS: list[dict[str, Any]] = [
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
    _row("card", State.B2, State.P3, "player_draws"),
    _row("card", State.B2, State.B3, "banker_draws"),
    _row("card", State.B2, State.ROUND_OVER),
    _row("card", State.P3, State.B3, "banker_draws"),
    _row("card", State.P3, State.ROUND_OVER),
    _row("card", State.B3, State.ROUND_OVER),
    _row("close_shoe", State.ROUND_OVER, State.SHOE_CLOSED, "cut_card_rounds_done"),
    _row("next_round", State.ROUND_OVER, State.P1),
    # misdeals
    _row("halt", list(RESUMABLE), State.HALTED),
    _row("void_round", State.HALTED, State.ROUND_OVER, "round_in_progress"),
    *[_row("resume", State.HALTED, state, f"resumes_to_{state.name}") for state in RESUMABLE],
]


class RoundModel:
    """What the guards read: the cards on the layout and the shoe's progress.

    The table core owns one and changes it; the machine only reads it.
    """

    state: State

    if TYPE_CHECKING:  # triggers that transitions attaches to the model
        def card(self) -> bool: ...
        def shoe_ready(self) -> bool: ...
        def next_round(self) -> bool: ...
        def close_shoe(self) -> bool: ...
        def halt(self) -> bool: ...
        def resume(self) -> bool: ...
        def void_round(self) -> bool: ...
        def may_shoe_ready(self) -> bool: ...
        def may_next_round(self) -> bool: ...

    def __init__(self, burn: str = "first_card") -> None:
        self.burn_mode = burn
        self.player: list[Card] = []
        self.banker: list[Card] = []
        self.burn_remaining = 0
        self.round_number = 0
        self.last_round: int | None = None
        self.resume_state: State | None = None

    # -- derived values -----------------------------------------------------
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

    # -- guards (named, side-effect free) ----------------------------------
    def burns_first_card(self) -> bool:
        """The house turns the first card and burns its value."""
        return self.burn_mode == "first_card"

    def burns_fixed(self) -> bool:
        """The house burns a fixed number of cards."""
        return self.burn_mode == "fixed"

    def more_to_burn(self) -> bool:
        """Burn cards are still due."""
        return self.burn_remaining > 0

    def player_draws(self) -> bool:
        """No natural, and the player's two-card total draws (0-5)."""
        return rules.player_draws(self.player_two_card_total, self.banker_two_card_total)

    def banker_draws(self) -> bool:
        """No natural, and the tableau says the banker draws."""
        if self.natural:
            return False
        return rules.banker_draws(self.banker_two_card_total, self.player_third_value)

    def cut_card_rounds_done(self) -> bool:
        """The cut card is out and the last round it allows is over."""
        return self.last_round is not None and self.round_number >= self.last_round

    def round_in_progress(self) -> bool:
        """The halt happened while a round was being dealt."""
        return self.resume_state in SLOTS


def _resume_guard(target: State) -> Callable[[RoundModel], bool]:
    def guard(self: RoundModel) -> bool:
        return self.resume_state is target

    guard.__name__ = f"resumes_to_{target.name}"
    guard.__doc__ = f"The halt interrupted {target.name}; resuming goes back there."
    return guard


for _state in RESUMABLE:
    setattr(RoundModel, f"resumes_to_{_state.name}", _resume_guard(_state))


class _QuietState(MachineState):
    """A transitions state that skips callback bookkeeping when it has no callbacks.

    The round machine uses no enter/exit callbacks; skipping their empty
    processing keeps a trigger cheap on the hot path (one card = one trigger).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._plain_name: str = super().name

    @property
    def name(self) -> str:
        """The state's name (the Enum member's name), computed once."""
        return self._plain_name

    def enter(self, event_data: Any) -> None:
        if self.on_enter:
            super().enter(event_data)

    def exit(self, event_data: Any) -> None:
        if self.on_exit:
            super().exit(event_data)


def _run_callbacks(machine: Machine, funcs: list[Any], event_data: Any) -> None:
    """Run ``funcs`` as ``Machine.callbacks`` does, without its per-callback log record."""
    for func in funcs:
        machine.callback(func, event_data)


class _LeanTransition(Transition):
    """A transition that runs callbacks only when it has some, without per-step debug logs.

    Semantics are transitions' own: prepare, conditions, before, state change, after.
    """

    def execute(self, event_data: Any) -> bool:
        machine = event_data.machine
        if self.prepare:
            _run_callbacks(machine, self.prepare, event_data)
        for condition in self.conditions:
            if not condition.check(event_data):
                return False
        if self.before or machine.before_state_change:
            _run_callbacks(machine, [*machine.before_state_change, *self.before], event_data)
        if self.dest:
            self._change_state(event_data)
        if self.after or machine.after_state_change:
            _run_callbacks(machine, [*self.after, *machine.after_state_change], event_data)
        return True

    def _change_state(self, event_data: Any) -> None:
        machine = event_data.machine
        source = machine.get_state(self.source)
        if source.on_exit:
            source.exit(event_data)
        dest = machine.get_state(self.dest)
        model = event_data.model
        setattr(model, machine.model_attribute, dest.value)
        event_data.state = dest
        if dest.on_enter:
            dest.enter(event_data)
        if dest.final:
            machine.callbacks(machine.on_final, event_data)


class RoundMachine(Machine):
    """The transitions machine class the round uses."""

    state_cls = _QuietState
    transition_cls = _LeanTransition

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._state_lookup: dict[Any, Any] = {}
        super().__init__(*args, **kwargs)
        for name, machine_state in self.states.items():
            self._state_lookup[name] = machine_state
            self._state_lookup[State[name]] = machine_state

    def get_state(self, state: Any) -> Any:
        """The transitions state object for an Enum member or name (one dict lookup)."""
        found = self._state_lookup.get(state)
        return found if found is not None else super().get_state(state)

    def _can_trigger(self, model: Any, trigger: str, *args: Any, **kwargs: Any) -> bool:
        """``may_<trigger>``: the guards of the trigger's rows from the model's state, and nothing else
        (the round machine has no prepare callbacks; with any, transitions' own check runs)."""
        event = self.events.get(trigger)
        state = self.get_state(getattr(model, self.model_attribute))
        rows = event.transitions.get(state.name) if event is not None else None
        if not rows:
            return False
        if self.prepare_event or any(row.prepare for row in rows):
            return bool(super()._can_trigger(model, trigger, *args, **kwargs))  # type: ignore[misc]
        if not rows[-1].conditions:
            return True  # the last row has no guard: the trigger always has somewhere to go
        event_data = EventData(state, event, self, model, args, kwargs)
        for row in rows:
            event_data.transition = row
            if all(condition.check(event_data) for condition in row.conditions):
                return True
        return False


DEALING = frozenset(row["source"] for row in TRANSITIONS if row["trigger"] == "card")
"""The states in which a card is due (a slot or a burn card): those with a ``card`` transition."""


def starts_round(row: dict[str, Any]) -> bool:
    """The row begins a new round: it enters P1 other than by resuming a halt."""
    return row["dest"] is State.P1 and row["trigger"] != "resume"


def build_machine(model: RoundModel, initial: State = State.NEW_SHOE,
                  on_round_start: Callable[[], None] | None = None) -> Machine:
    """The round machine for ``model``: one table of rows, no auto transitions.

    ``on_round_start`` is called after every transition that begins a new round.
    """
    rows = TRANSITIONS if on_round_start is None else [
        {**row, "after": on_round_start} if starts_round(row) else row for row in TRANSITIONS
    ]
    return RoundMachine(
        model=model,
        states=State,
        transitions=rows,
        initial=initial,
        auto_transitions=False,
        ignore_invalid_triggers=False,
        model_attribute="state",
    )


def mermaid(machine: Machine | None = None) -> str:
    """The machine as a Mermaid state diagram, read from the machine object itself."""
    if machine is None:
        machine = build_machine(RoundModel())
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
                source_name = State(source).name if source in {s.value for s in State} else source
                dest_name = State(transition.dest).name if transition.dest in {s.value for s in State} \
                    else transition.dest
                lines.append(f"    {source_name} --> {dest_name} : {label}")
    return "\n".join(lines) + "\n"
