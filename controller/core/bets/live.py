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
from controller.core.bets.kernel import BetValues
from controller.core.bets.settle import house_pays
from controller.core.events import AlertClearedEvent, AlertEvent, AlertUpdatedEvent, BetEdge, EdgeEvent, Event
from controller.i18n.message import message

COUNTER_STAKE = 100
"""The stake the advantage alert prices the counter's expected win on (units of money, any currency)."""


def exact_text(value: Fraction) -> str:
    """``p/q``, the form every exact fraction of the event stream takes."""
    return f"{value.numerator}/{value.denominator}"


_thresholds: tuple[BetsSettings, dict[str, tuple[int, int, float]]] | None = None
_house_values: tuple[BetsSettings, BetValues | None] | None = None


def _house_values_of(settings: BetsSettings) -> BetValues | None:
    """The bets ``[bets.pays]`` pays otherwise than their defaults, valued under the house's pays (made once per
    settings object); None when the house pays every bet its defaults."""
    global _house_values
    if _house_values is None or _house_values[0] is not settings:
        priced = [(name, BETS[name], house_pays(BETS[name], settings)) for name in settings.pays if name in BETS]
        _house_values = (settings, BetValues(priced) if priced else None)
    return _house_values[1]


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
                known: Mapping[str, Fraction] | None = None, watched: frozenset[str] | None = None) -> list[Event]:
    """The ``edge`` event of the round about to be dealt, then the ``advantage`` alerts it calls for; nothing when
    ``[bets] live_edge`` is off or fewer cards are left than a round may need.

    ``watched``: the bets the table offers (their catalogue names). Each of them whose expected value is above its
    ``[bets] alert_above`` gets one alert that follows its advantage (:func:`follow_advantages`). None: the earlier
    edition's alerts (:func:`alert_once_a_shoe`: every bet, once a shoe).

    The ``edge`` event gives every bet's value under its default pays; the alerts weigh a bet the house pays
    otherwise (``[bets.pays]``) at the house's pays.

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
    house = _house_values_of(settings)
    if house is not None:  # the players win what the house pays: its alerts weigh each bet at its own pays
        evs = {**evs, **house.evs(left.values, left.ranks, left.cards)}
    above = _above(evs, _thresholds_of(settings))
    if watched is None:
        alert_once_a_shoe(events, evs, above, shoe, round_number, alerts)
    else:
        follow_advantages(events, evs, above, watched, shoe, round_number, alerts)
    return events


def _above(evs: Mapping[str, Fraction], thresholds: Mapping[str, tuple[int, int, float]]) -> dict[str, float]:
    """The bets whose value is above their threshold, each with the threshold as configured."""
    found = {}
    for name, ev in evs.items():
        numerator, denominator, above = thresholds[name]
        if ev.numerator * denominator > numerator * ev.denominator:
            found[name] = above
    return found


def alert_once_a_shoe(events: list[Event], evs: Mapping[str, Fraction], above: Mapping[str, float], shoe: int,
                      round_number: int, alerts: AlertOpener) -> None:
    """The earlier edition: an alert for every bet above its threshold without an advantage alert of this shoe open
    already, worded without the counter's win."""
    if not above:
        return
    watched = {alert.bet for alert in alerts.open_alerts if alert.kind == "advantage" and alert.shoe == shoe}
    for name, threshold in above.items():
        if name not in watched:
            events.append(alerts.open(advantage_alert(name, Fraction(evs[name]), threshold, shoe, round_number,
                                                      alerts.next_id(), counter_words=False)))


def follow_advantages(events: list[Event], evs: Mapping[str, Fraction], above: Mapping[str, float],
                      watched: frozenset[str], shoe: int, round_number: int, alerts: AlertOpener) -> None:
    """One alert a watched bet while its advantage lasts: opened when its value rises above the threshold, updated
    each round it stays there (``alert_updated``, while the alert is open), closed by itself when it falls back
    (``alert_cleared``). An alert acknowledged while the advantage lasts is not raised again until it is over."""
    following = alerts.book.advantages
    for name in evs:
        if name not in watched:
            continue
        alert_id = following.get(name)
        threshold = above.get(name)
        if threshold is not None and alert_id is None:
            alert = alerts.open(advantage_alert(name, Fraction(evs[name]), threshold, shoe, round_number,
                                                alerts.next_id()))
            alerts.follow(name, alert.id)
            events.append(alert)
        elif threshold is not None and alert_id is not None and alerts.book.is_open(alert_id):
            alert = advantage_alert(name, Fraction(evs[name]), threshold, shoe, round_number, alert_id)
            events.append(alerts.update(alert, AlertUpdatedEvent(
                id=alert_id, kind="advantage", shoe=shoe, round=round_number, bet=name, edge=exact_text(evs[name]),
                detail=alert.detail, say_id=alert.say_id, say_params=alert.say_params)))
        elif threshold is None and alert_id is not None:
            alerts.follow(name, None)
            if alerts.book.is_open(alert_id):
                ended = message("alert.advantage_ended", "{bet} is no longer above the house's threshold in round "
                                "{round}: the advantage is over", bet=name, round=round_number)
                events.append(alerts.clear(AlertClearedEvent(
                    id=alert_id, kind="advantage", round=round_number, reason=ended.english(), say_id=ended.id,
                    say_params=ended.params)))


def counter_win(ev: Fraction, stake: int = COUNTER_STAKE) -> str:
    """What a counter staking ``stake`` on a bet worth ``ev`` per unit expects to win, to the cent (``+4.10``)."""
    cents = Decimal(ev.numerator * stake * 100) / Decimal(ev.denominator)
    return f"{cents.quantize(Decimal(1)) / 100:+.2f}"


def advantage_alert(bet: str, ev: Fraction, threshold: float, shoe: int, round_number: int,
                    alert_id: str, counter_words: bool = True) -> AlertEvent:
    """The alert ``alert_id`` that the players have the edge on ``bet`` (expected net win ``ev`` per unit, above
    the house's ``threshold`` for it), saying what a counter could be making on it now (``counter_words``; the
    earlier edition said only the edge)."""
    if not counter_words:
        detail = message("alert.advantage", "{bet} is worth {percent}% to the players in round {round} from the cards "
                         "they could have seen; watch for players who raise it",
                         bet=bet, percent=f"{float(ev) * 100:+.3f}", round=round_number)
        return AlertEvent(id=alert_id, kind="advantage", severity=severity_of("advantage"), shoe=shoe,
                          round=round_number, bet=bet, edge=exact_text(ev), threshold=threshold,
                          detail=detail.english(), say_id=detail.id, say_params=detail.params)
    detail = message("alert.advantage_counter", "{bet} is worth {percent}% to the players in round {round} from the "
                     "cards they could have seen (the house alerts above {threshold}%): a counter staking {stake} on "
                     "it now expects to win {win}; watch for players who raise it",
                     bet=bet, percent=f"{float(ev) * 100:+.3f}", round=round_number,
                     threshold=f"{threshold * 100:+.2f}", stake=COUNTER_STAKE, win=counter_win(ev))
    return AlertEvent(id=alert_id, kind="advantage", severity=severity_of("advantage"), shoe=shoe, round=round_number,
                      bet=bet, edge=exact_text(ev), threshold=threshold, detail=detail.english(), say_id=detail.id,
                      say_params=detail.params)
