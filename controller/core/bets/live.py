"""The live edge: before each round's first card, every bet's exact expected value from the cards the
players could have seen, and an ``advantage`` alert for each bet above the house's threshold."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from config.schema import BetsSettings
from controller.core.alerts import AlertOpener, severity_of
from controller.core.bets.catalogue import BETS
from controller.core.bets.exact import MAX_CARDS, Shoe, ShoeTooShort, bet_evs
from controller.core.events import AlertEvent, BetEdge, EdgeEvent, Event
from controller.i18n.message import message


def exact_text(value: Fraction) -> str:
    """``p/q``, the form every exact fraction of the event stream takes."""
    return f"{value.numerator}/{value.denominator}"


def edge_events(settings: BetsSettings, decks: int, shoe: int, round_number: int,
                shown: Mapping[str, int], alerts: AlertOpener,
                known: Mapping[str, Fraction] | None = None) -> list[Event]:
    """The ``edge`` event of the round about to be dealt, then an ``advantage`` alert for each bet whose
    expected value is above ``[bets] alert_above`` and has no advantage alert of this shoe open already
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
        evs = dict(known) if known is not None and known.keys() == BETS.keys() else bet_evs(left)
    except ShoeTooShort:
        return []
    edge = EdgeEvent(round=round_number, shoe=shoe, seen=sum(shown.values()),
                     bets={name: BetEdge(ev=exact_text(ev)) for name, ev in evs.items()})
    events: list[Event] = [edge]
    threshold = Fraction(str(settings.alert_above))
    watched = {(alert.bet, alert.shoe) for alert in alerts.open_alerts if alert.kind == "advantage"}
    for name, ev in evs.items():
        if ev > threshold and (name, shoe) not in watched:
            events.append(alerts.open(advantage_alert(name, ev, settings.alert_above, shoe, round_number,
                                                      alerts.next_id())))
    return events


def advantage_alert(bet: str, ev: Fraction, threshold: float, shoe: int, round_number: int,
                    alert_id: str) -> AlertEvent:
    """The alert ``alert_id`` that the players have the edge on ``bet`` (expected net win ``ev`` per unit)."""
    detail = message("alert.advantage", "{bet} is worth {percent}% to the players in round {round} from the cards "
                     "they could have seen; watch for players who raise it",
                     bet=bet, percent=f"{float(ev) * 100:+.3f}", round=round_number)
    return AlertEvent(id=alert_id, kind="advantage", severity=severity_of("advantage"), shoe=shoe, round=round_number,
                      bet=bet, edge=exact_text(ev), threshold=threshold, detail=detail.english(), say_id=detail.id,
                      say_params=detail.params)
