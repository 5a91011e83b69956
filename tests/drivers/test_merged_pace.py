"""A paced simulated dealer (``croupier simulate --pace``) waits out its pace in one wait per card, not in polls."""

from __future__ import annotations

from controller.core.inputs import Input, InputKind
from drivers.merged import POLL_SECONDS, MergedSource
from drivers.mock import MockShoe

PACE = 0.5
"""Ten polls' worth: a polling dealer would look ten times between two cards."""


def test_a_paced_dealer_waits_for_its_next_card_without_polling() -> None:
    source = MergedSource(MockShoe("mock://?seed=3"), pace=PACE)
    looks = 0
    real = source._recv

    def counted(timeout: float | None) -> Input | None:
        nonlocal looks
        looks += 1
        return real(timeout)

    source._recv = counted  # type: ignore[method-assign]
    with source:
        assert source.recv() is not None
        looks = 0
        assert source.recv() is not None
    assert PACE / POLL_SECONDS >= 10
    assert looks <= 3, f"the dealer looked {looks} times for one card: it should wait out its pace at once"


def test_a_typed_input_still_comes_at_once_during_the_pace() -> None:
    source = MergedSource(MockShoe("mock://?seed=3"), pace=30.0)
    with source:
        assert source.recv() is not None
        typed = Input(InputKind.SIGN_OUT, "idle")
        source.put(typed)
        assert source.recv(timeout=20.0) is typed, "an input put during the pace must not wait for it"
