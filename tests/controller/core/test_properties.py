"""Property tests of the table core: any shuffled shoe is dealt by the rules.

The expectation is computed here from first principles (the seeds' words: a
two-card 8 or 9 is a natural and ends the round; the player draws on 0-5; the
banker, when the player stood, draws on 0-5; otherwise the banker draws on 0-2
always, on 3 unless the player's third card is 8, on 4 with 2-7, on 5 with 4-7,
on 6 with 6-7, never on 7 — seed 003). controller.core.rules is not used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from config.loader import load_config
from config.schema import Settings
from controller.core.events import Event, ResultEvent, SettlementEvent
from controller.core.inputs import Input, InputKind
from controller.core.machine import SLOTS, State
from controller.core.stopping import stopping_alert
from controller.core.table import Table
from tests.hypothesis_profile import examples

RANKS = "A23456789TJQK"
SUITS = "SHDC"
VALUE = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0, **{str(n): n for n in range(2, 10)}}


def total(cards: list[str]) -> int:
    return sum(VALUE[card[0]] for card in cards) % 10


def banker_takes_third(banker: int, player_third: int | None) -> bool:
    if player_third is None:
        return banker <= 5
    if banker <= 2:
        return True
    if banker == 3:
        return player_third != 8
    if banker == 4:
        return 2 <= player_third <= 7
    if banker == 5:
        return 4 <= player_third <= 7
    if banker == 6:
        return player_third in (6, 7)
    return False


@dataclass
class Round:
    slots: list[tuple[str, str]] = field(default_factory=list)
    complete: bool = False

    def hand(self, side: str) -> list[str]:
        return [card for slot, card in self.slots if slot[0] == side]


def expected_rounds(cards: list[str]) -> list[Round]:
    """Cut ``cards`` (top of the shoe first) into rounds, slot by slot."""
    rounds: list[Round] = []
    position = 0
    while position < len(cards):
        current = Round()
        rounds.append(current)

        def take(slot: str, current: Round = current) -> str | None:
            nonlocal position
            if position >= len(cards):
                return None
            card = cards[position]
            position += 1
            current.slots.append((slot, card))
            return card

        if any(take(slot) is None for slot in ("P1", "B1", "P2", "B2")):
            return rounds
        player, banker = total(current.hand("P")), total(current.hand("B"))
        if player < 8 and banker < 8:
            third = None
            if player <= 5:
                third = take("P3")
                if third is None:
                    return rounds
            if banker_takes_third(banker, None if third is None else VALUE[third[0]]) and take("B3") is None:
                return rounds
        current.complete = True
    return rounds


def expected_nets(winner: str, banker_total: int, player_pair: bool, banker_pair: bool,
                  variant: str) -> dict[str, str]:
    if winner == "tie":
        player, banker, tie = "0", "0", "+8"
    elif winner == "player":
        player, banker, tie = "+1", "-1", "-1"
    else:
        player, tie = "-1", "-1"
        banker = "+0.95" if variant == "commission" else "+0.5" if banker_total == 6 else "+1"
    return {"player": player, "banker": banker, "tie": tie,
            "player_pair": "+11" if player_pair else "-1", "banker_pair": "+11" if banker_pair else "-1"}


def table_settings(decks: int, variant: str) -> Settings:
    return load_config(environ={}, overrides={"shoe": {"burn": "none"},
                                              "table": {"decks": decks, "variant": variant}})


@st.composite
def shoes(draw: st.DrawFn) -> tuple[int, list[str]]:
    """A shuffled shoe of 1-8 decks: a permutation of every card ``decks`` times."""
    decks = draw(st.integers(min_value=1, max_value=8))
    deck = [rank + suit for _ in range(decks) for suit in SUITS for rank in RANKS]
    return decks, draw(st.permutations(deck))


def check_call(events: list[Event], table: Table) -> None:
    """A handle() call's events end with what the dealer does next. Before that, a prompt appears only
    where a resolution places a card (docs/events.md: a prompt before every card), and then it is followed
    at once by that card, in the slot it names."""
    assert events, "handle() returned no events"
    last = events[-1]
    assert last["event"] in ("prompt", "instruction"), events
    for index, event in enumerate(events[:-1]):
        if event["event"] == "prompt":
            placed = events[index + 1]
            assert placed["event"] == "card", events
            assert (placed["slot"], placed["round"]) == (event["slot"], event["round"]), events
    assert (last["event"] == "prompt") == (table.state in SLOTS)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.data_too_large])
@given(shoes(), st.sampled_from(["commission", "no_commission"]))
def test_any_shoe_is_dealt_by_the_rules(shoe: tuple[int, list[str]], variant: str) -> None:
    decks, cards = shoe
    table = Table(table_settings(decks, variant))
    assert table.start()[-1]["event"] == "instruction"
    events = table.handle(Input(InputKind.SHOE))
    check_call(events, table)
    dealt: list[tuple[str, str]] = []
    results: list[ResultEvent] = []
    settlements: list[SettlementEvent] = []
    due = events[-1].get("slot")
    for card in cards:
        if table.state is State.ROUND_OVER:
            events = table.handle(Input(InputKind.NEXT))
            check_call(events, table)
            due = events[-1].get("slot")
        events = table.handle(Input(InputKind.CARD, card))
        assume(stopping_alert(table.value, table.context) is None)  # an unshuffled-looking shoe stops the table
        check_call(events, table)
        (placed,) = [event for event in events if event["event"] == "card"]
        assert placed["slot"] == due, "the card went to the slot the dealer was prompted for"
        assert placed["card"] == card
        dealt.append((placed["slot"], placed["card"]))
        results += [event for event in events if isinstance(event, ResultEvent)]
        settlements += [event for event in events if isinstance(event, SettlementEvent)]
        assert not [event for event in events if event["event"] in ("misdeal", "rejected")], events
        due = events[-1].get("slot")

    rounds = expected_rounds(cards)
    # each round takes exactly the cards the rules require, in slot order
    assert dealt == [slot for r in rounds for slot in r.slots]
    complete = [r for r in rounds if r.complete]
    assert len(results) == len(settlements) == len(complete) == table.rounds_dealt
    assert table.in_round is (not rounds[-1].complete)
    for number, (expected, result, settlement) in enumerate(zip(complete, results, settlements, strict=True), 1):
        player, banker = expected.hand("P"), expected.hand("B")
        assert result["round"] == settlement["round"] == number
        assert result["player"] == {"cards": player, "total": total(player)}
        assert result["banker"] == {"cards": banker, "total": total(banker)}
        assert result["natural"] is (total(player[:2]) >= 8 or total(banker[:2]) >= 8)
        winner = ("player" if total(player) > total(banker) else
                  "banker" if total(banker) > total(player) else "tie")
        assert result["winner"] == winner
        player_pair, banker_pair = player[0][0] == player[1][0], banker[0][0] == banker[1][0]
        assert (result["player_pair"], result["banker_pair"]) == (player_pair, banker_pair)
        nets = {bet: outcome["net"] for bet, outcome in settlement["bets"].items()}
        assert nets == expected_nets(winner, total(banker), player_pair, banker_pair, variant)
        assert all(isinstance(Decimal(net), Decimal) for net in nets.values())

    # no card dealt twice beyond the deck count: the whole shoe is seen, each card `decks` times
    assert table.cards_seen == 52 * decks and table.cards_left == 0
    assert set(table.inventory.values()) == {decks}
    assert table.foreign == []
    # and one more copy of any card is foreign
    if table.state is State.ROUND_OVER:
        check_call(table.handle(Input(InputKind.NEXT)), table)
    events = table.handle(Input(InputKind.CARD, cards[0]))
    check_call(events, table)
    assert [e["kind"] for e in events if e["event"] == "misdeal"] == ["foreign_card"]


def _round_tokens() -> st.SearchStrategy[Input]:
    cards = st.sampled_from(["AS", "TH", "5D", "9C", "KS", "2H", "3h", "10c", "6S", "7D", "8H", "zz", "4C"])
    return st.one_of(
        cards.map(lambda code: Input(InputKind.CARD, code)),
        cards.map(lambda code: Input(InputKind.CARD, code)),
        st.sampled_from([k for k in InputKind if k not in (InputKind.CARD, InputKind.MANUAL)]).map(Input),
        cards.map(lambda code: Input(InputKind.MANUAL, code)),
    )


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["first_card", "fixed", "none"]),
    st.integers(min_value=1, max_value=2),
    st.sampled_from(["burn", "void"]),
    st.sampled_from(["burn", "use"]),
    st.lists(_round_tokens(), max_size=60),
)
def test_every_handle_ends_with_prompt_or_instruction(burn: str, decks: int, extra: str, exposed: str,
                                                      items: list[Input]) -> None:
    """Whatever arrives (cards, bad codes, misdeals, resolutions), the dealer is told what to do next."""
    settings_ = load_config(environ={}, overrides={
        "shoe": {"burn": burn}, "table": {"decks": decks},
        "procedures": {"extra_card": extra, "exposed_card": exposed}})
    table = Table(settings_)
    assert table.start()[-1]["event"] == "instruction"
    for item in items:
        check_call(table.handle(item), table)
        assert all(count <= decks for count in table.inventory.values())


@settings(max_examples=100, deadline=None)
@given(st.lists(_round_tokens(), max_size=60))
def test_replaying_the_same_inputs_gives_the_same_events(items: list[Input]) -> None:
    def replay() -> list[list[Event]]:
        table = Table(load_config(environ={}, overrides={"table": {"decks": 2}}))
        return [table.start(), *(table.handle(item) for item in [Input(InputKind.SHOE), *items])]

    assert replay() == replay()
