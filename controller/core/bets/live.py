"""The live edge: before each round's first card, every bet's exact expected value from the cards the
players could have seen, and an ``advantage`` alert for each bet above the house's threshold for it."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction

from config.schema import BetsSettings
from controller.core.alerts import AlertOpener, severity_of
from controller.core.bets.catalogue import BETS
from controller.core.bets.exact import MAX_CARDS, Shoe, ShoeTooShort, bet_evs
from controller.core.events import AlertEvent, BetEdge, EdgeEvent, Event
from controller.i18n.message import message

COUNTER_STAKE = 100
"""The stake the advantage alert prices the counter's expected win on (units of money, any currency)."""


def exact_text(value: Fraction) -> str:
    """``p/q``, the form every exact fraction of the event stream takes."""
    return f"{value.numerator}/{value.denominator}"


_thresholds: tuple[BetsSettings, dict[str, tuple[int, int, float]]] | None = None


def _thresholds_of(settings: BetsSettings) -> dict[str, tuple[int, int, float]]:
    """Each bet's alert threshold as an exact fraction ``(numerator, denominator)`` and as configured (made once
    per settings object)."""
    global _thresholds
    if _thresholds is None or _thresholds[0] is not settings:
        found = {}
        for name in BETS:
            above = settings.alert_threshold(name)
            exact = Fraction(str(above))
            found[name] = (exact.numerator, exact.denominator, above)
        _thresholds = (settings, found)
    return _thresholds[1]


def edge_events(settings: BetsSettings, decks: int, shoe: int, round_number: int,
                shown: Mapping[str, int], alerts: AlertOpener,
                known: Mapping[str, Fraction] | None = None) -> list[Event]:
    """The ``edge`` event of the round about to be dealt, then an ``advantage`` alert for each bet whose
    expected value is above its ``[bets] alert_above`` and has no advantage alert of this shoe open already
    (opened in ``alerts``); nothing when ``[bets] live_edge`` is off or fewer cards are left than a round
    may need.

    ``known``: every bet's expected value for this round, already known (a resume reads them from the
    journal's ``edge`` event of the round: the same function of the same cards); used instead of computing
    them when it names exactly the catalogue's bets, else ignored."""
    if not settings.live_edge:
        return []
    left = Shoe.of(decks, shown)
    if left.size < MAX_CARDS:
        return []
    try:
        evs = known if known is not None and known.keys() == BETS.keys() else bet_evs(left)
    except ShoeTooShort:
        return []
    edge = EdgeEvent(round=round_number, shoe=shoe, seen=sum(shown.values()),
                     bets={name: BetEdge(ev=exact_text(ev)) for name, ev in evs.items()})
    events: list[Event] = [edge]
    thresholds = _thresholds_of(settings)
    watched: set[object] | None = None
    for name, ev in evs.items():
        numerator, denominator, above = thresholds[name]
        if ev.numerator * denominator <= numerator * ev.denominator:
            continue
        if watched is None:
            watched = {alert.bet for alert in alerts.open_alerts if alert.kind == "advantage" and alert.shoe == shoe}
        if name not in watched:
            events.append(alerts.open(advantage_alert(name, Fraction(ev), above, shoe, round_number,
                                                      alerts.next_id())))
    return events


def counter_win(ev: Fraction, stake: int = COUNTER_STAKE) -> str:
    """What a counter staking ``stake`` on a bet worth ``ev`` per unit expects to win, to the cent (``+4.10``)."""
    cents = Decimal(ev.numerator * stake * 100) / Decimal(ev.denominator)
    return f"{cents.quantize(Decimal(1)) / 100:+.2f}"


def advantage_alert(bet: str, ev: Fraction, threshold: float, shoe: int, round_number: int,
                    alert_id: str) -> AlertEvent:
    """The alert ``alert_id`` that the players have the edge on ``bet`` (expected net win ``ev`` per unit, above
    the house's ``threshold`` for it), saying what a counter could be making on it now."""
    detail = message("alert.advantage", "{bet} is worth {percent}% to the players in round {round} from the cards "
                     "they could have seen (the house alerts above {threshold}%): a counter staking {stake} on it "
                     "now expects to win {win}; watch for players who raise it",
                     bet=bet, percent=f"{float(ev) * 100:+.3f}", round=round_number,
                     threshold=f"{threshold * 100:+.2f}", stake=COUNTER_STAKE, win=counter_win(ev))
    return AlertEvent(id=alert_id, kind="advantage", severity=severity_of("advantage"), shoe=shoe, round=round_number,
                      bet=bet, edge=exact_text(ev), threshold=threshold, detail=detail.english(), say_id=detail.id,
                      say_params=detail.params)
