"""The fast simulation path: seeded shoes dealt as card values, for runs no one watches card by card.

It deals exactly the shoes the mock driver deals (:func:`controller.core.shoe.shuffled_shoe`'s shuffle,
the cut card ``cut_from_end`` cards from the bottom, the house's burn and cut-card procedures) and plays
each round from tables precomputed from :mod:`controller.core.rules`, so its totals are the ones the full
controller path gives for the same seed and rounds (``tests/controller/app/test_fastsim.py`` compares
them). Shoes are independent, so ``workers`` processes can deal them; the totals do not depend on it.
"""

from __future__ import annotations

import contextlib
import functools
import random
import signal
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from controller.core import rules
from controller.core.cards import RANK_VALUES, RANKS, SUITS

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

WINNERS: Final = ("banker", "player", "tie")
COUNTED: Final = ("rounds", "banker", "player", "tie", "natural", "player_pair", "banker_pair")
"""The summary counts the engine gives, in the order of :class:`ShoeCounts`' fields."""
SHOES_PER_TASK: Final = 64


def _round_table() -> list[int]:
    """``TABLE[p * 1000 + b * 100 + c5 * 10 + c6]``: the round whose two-card totals are ``p`` and ``b`` and
    whose fifth and sixth cards (in dealing order) have values ``c5`` and ``c6``, encoded as
    ``cards_used * 16 + winner_index * 2 + natural`` (winner_index into :data:`WINNERS`).

    Read from the rules' own functions, so the rules are written once."""
    table = [0] * 10_000
    for player in range(10):
        for banker in range(10):
            natural = rules.is_natural(player) or rules.is_natural(banker)
            for fifth in range(10):
                for sixth in range(10):
                    player_total, banker_total, used = player, banker, 4
                    player_third: int | None = None
                    if not natural:
                        if rules.player_draws(player, banker):
                            player_third = fifth
                            player_total = (player + fifth) % 10
                            used = 5
                        if rules.banker_draws(banker, player_third):
                            banker_total = (banker + (fifth if player_third is None else sixth)) % 10
                            used += 1
                    won = WINNERS.index(rules.winner(player_total, banker_total))
                    table[player * 1000 + banker * 100 + fifth * 10 + sixth] = used * 16 + won * 2 + natural
    return table


ROUND_TABLE: Final = _round_table()
SUMS_TABLE: Final = [ROUND_TABLE[player % 10 * 1000 + banker % 10 * 100 + rest]
                     for player in range(19) for banker in range(19) for rest in range(100)]
""":data:`ROUND_TABLE` indexed by the raw two-card sums (0-18) instead of their totals:
``SUMS_TABLE[(p1 + p2) * 1900 + (b1 + b2) * 100 + c5 * 10 + c6]``."""
PADDING: Final = 6
"""Cards past a shoe's end (value 0, ranks that pair with nothing), so a round's lookup never fails."""
VALUE_OF_RANK: Final = bytes([RANK_VALUES[rank] for rank in RANKS] + [0] * (256 - len(RANKS)))
"""A ``bytes.translate`` table from a rank index to its baccarat value."""


@dataclass(frozen=True)
class Procedure:
    """What decides a seeded shoe and how it is dealt (the mock's URL and the ``[shoe]`` settings)."""

    seed: int
    decks: int
    cut_from_end: int
    burn: str = "first_card"
    """``first_card``, ``fixed`` or ``none``, as ``[shoe] burn``."""
    burn_cards: int = 3
    one_more: bool = True
    """``[shoe] cut_card = "one_more"``: after the cut card's round, play one more."""


class ShoeOverrun(Exception):
    """A round would need cards past the shoe's end: the full controller path must deal it."""


@functools.cache
def _new_shoe_ranks(decks: int) -> tuple[int, ...]:
    """Rank indexes of a new shoe in the order :func:`controller.core.shoe.shuffled_shoe` builds it."""
    return tuple(rank for _ in range(decks) for _suit in SUITS for rank in range(len(RANKS)))


@functools.cache
def _shuffle_steps(size: int) -> tuple[tuple[int, int], ...]:
    return tuple((index, (index + 1).bit_length()) for index in range(size - 1, 0, -1))


def _shuffle(rng: random.Random, items: list[int]) -> None:
    """``rng.shuffle(items)``, the same permutation from the same generator, without a call per card.

    It is CPython's ``Random.shuffle`` (Fisher-Yates over ``_randbelow_with_getrandbits``) written out;
    :data:`SHUFFLE_IS_RANDOMS` checks it against the real one at import, and the real one is used if not."""
    getrandbits = rng.getrandbits
    for index, bits in _shuffle_steps(len(items)):
        pick = getrandbits(bits)
        while pick > index:
            pick = getrandbits(bits)
        items[index], items[pick] = items[pick], items[index]


def _same_as_randoms_shuffle() -> bool:
    for size in (1, 2, 52, 416):
        mine, theirs = list(range(size)), list(range(size))
        _shuffle(random.Random(f"check:{size}"), mine)
        random.Random(f"check:{size}").shuffle(theirs)
        if mine != theirs:
            return False
    return True


SHUFFLE_IS_RANDOMS: Final = _same_as_randoms_shuffle()


def shoe_ranks(procedure: Procedure, shoe_index: int) -> list[int]:
    """The rank indexes of seeded shoe ``shoe_index`` (0-based), top first: the mock's shuffle."""
    ranks = list(_new_shoe_ranks(procedure.decks))
    rng = random.Random(f"croupier:{procedure.seed}:{procedure.decks}:{shoe_index}")
    if SHUFFLE_IS_RANDOMS:
        _shuffle(rng, ranks)
    else:
        rng.shuffle(ranks)
    return ranks


def play_shoe(procedure: Procedure, shoe_index: int, round_limit: int = 0) -> list[int]:
    """Deal seeded shoe ``shoe_index`` (0-based) to its end, or to ``round_limit`` rounds when that is not 0.

    Returns the counts in :data:`COUNTED` order."""
    ranks = shoe_ranks(procedure, shoe_index)
    size = len(ranks)
    ranks.extend(range(100, 100 + PADDING))
    rank_bytes = bytes(ranks)
    values = rank_bytes.translate(VALUE_OF_RANK)
    starts, codes = deal_rounds(procedure, values, size)
    if round_limit:
        del starts[round_limit:], codes[round_limit:]
    check_overrun(starts, codes, size, shoe_index)
    outcomes: Counter[int] = Counter()
    for code, count in Counter(codes).items():
        outcomes[code & 15] += count
    player_pairs = sum(rank_bytes[at] == rank_bytes[at + 2] for at in starts)
    banker_pairs = sum(rank_bytes[at + 1] == rank_bytes[at + 3] for at in starts)
    return _counts(len(starts), outcomes, player_pairs, banker_pairs)


def deal_rounds(procedure: Procedure, values: bytes, size: int) -> tuple[list[int], list[int]]:
    """Where each round of a shoe starts and its :data:`ROUND_TABLE` code, after the burn and up to the cut
    card's procedure; ``values``: the baccarat value of each of the shoe's ``size`` cards, padded with
    :data:`PADDING` more (:func:`check_overrun` tells whether the rounds kept fit in the shoe)."""
    cut = max(0, size - procedure.cut_from_end)
    at = _burn(procedure, values)
    table = SUMS_TABLE
    starts: list[int] = []
    codes: list[int] = []
    start, code_of = starts.append, codes.append
    after_cut = -1  # rounds still to deal once a round would start past the cut card (-1: not yet known)
    while True:
        if at > cut:
            if after_cut < 0:
                after_cut = (0 if starts else 1) + (1 if procedure.one_more else 0)
            if after_cut == 0:
                break
            after_cut -= 1
        start(at)
        code = table[(values[at] + values[at + 2]) * 1900 + (values[at + 1] + values[at + 3]) * 100
                     + values[at + 4] * 10 + values[at + 5]]
        code_of(code)
        at += code >> 4
    return starts, codes


def check_overrun(starts: list[int], codes: list[int], size: int, shoe_index: int) -> None:
    """:class:`ShoeOverrun` when the last round kept needs cards past the shoe's ``size``."""
    if starts and starts[-1] + (codes[-1] >> 4) > size:
        raise ShoeOverrun(f"shoe {shoe_index + 1} ran out of cards in round {len(starts)}")


def _burn(procedure: Procedure, values: bytes) -> int:
    """Cards burned at the start of the shoe."""
    if procedure.burn == "none":
        return 0
    if procedure.burn == "fixed":
        return procedure.burn_cards
    return 1 + (values[0] or 10)


def _counts(played: int, outcomes: Counter[int], player_pairs: int, banker_pairs: int) -> list[int]:
    by_winner = [outcomes[2 * index] + outcomes[2 * index + 1] for index in range(len(WINNERS))]
    naturals = outcomes[1] + outcomes[3] + outcomes[5]
    return [played, *by_winner, naturals, player_pairs, banker_pairs]


STOPS: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a command (Ctrl+C; a service manager's stop, a terminal hung up)."""


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """``workers`` processes that deal shoes for the command, which alone takes the stops it takes.

    A stop signalled to every process (Ctrl+C at a terminal, ``systemctl stop``, a terminal hung up) reached each
    worker too, which raised it as the command does (:mod:`controller.cli.stopping`): a traceback a worker, the
    pool broken, and the command could wait for it for ever. A worker ignores Ctrl+C and each signal the command
    has a handler for (the command ends the pool, the shoes in hand dealt), and ends on any other as the command
    does. The pool forks its workers at the first :func:`held_stops` ``submit``."""
    from concurrent.futures import ProcessPoolExecutor

    taken = tuple(number for number in STOPS if callable(signal.getsignal(number)))
    return ProcessPoolExecutor(max_workers=workers, initializer=_leave_stops_to_the_command, initargs=(taken,))


@contextlib.contextmanager
def held_stops() -> Iterator[None]:
    """The stop signals wait while the ``with`` block runs (the pool forks its workers): raised in the middle of a
    fork, a stop left its after-fork work half done ('Exception ignored in ... _releaseLock'), and a worker forked
    before its initializer ran would take it as its own. Only the main thread takes signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _leave_stops_to_the_command(taken: tuple[int, ...]) -> None:
    for number in taken:
        signal.signal(number, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)  # forked with them held (:func:`held_stops`)


def _play_shoes(procedure: Procedure, first: int, count: int) -> list[list[int]]:
    return [play_shoe(procedure, index) for index in range(first, first + count)]


def _whole_shoes(procedure: Procedure, workers: int) -> Iterator[list[int]]:
    """The counts of every shoe from the first, in order, dealt by ``workers`` processes."""
    if workers <= 1:
        index = 0
        while True:
            yield play_shoe(procedure, index)
            index += 1
    with worker_pool(workers) as pool:
        first = 0
        while True:
            with held_stops() if first == 0 else contextlib.nullcontext():  # the first submit forks the workers
                batch = [pool.submit(_play_shoes, procedure, first + n * SHOES_PER_TASK, SHOES_PER_TASK)
                         for n in range(workers)]
            first += workers * SHOES_PER_TASK
            for future in batch:
                yield from future.result()


def simulate(procedure: Procedure, rounds: int, workers: int = 1,
             progress: Callable[[int], None] | None = None) -> Counter[str]:
    """The summary counts of ``rounds`` rounds (0: the first shoe to its cut card), as
    :class:`~controller.ui.transcript.Summary` counts them; ``progress`` is told the rounds done so far."""
    if rounds == 0:
        counts = play_shoe(procedure, 0)
        return _counter(counts, shoes=1)
    totals = [0] * len(COUNTED)
    shoes = 0
    shoes_iter = _whole_shoes(procedure, workers)
    try:
        for counts in shoes_iter:
            shoes += 1
            if totals[0] + counts[0] > rounds:
                counts = play_shoe(procedure, shoes - 1, rounds - totals[0])
            totals = [total + count for total, count in zip(totals, counts, strict=True)]
            if progress is not None:
                progress(totals[0])
            if totals[0] >= rounds:
                break
    finally:
        close = getattr(shoes_iter, "close", None)
        if close is not None:
            close()
    return _counter(totals, shoes)


def _counter(counts: list[int], shoes: int) -> Counter[str]:
    counter: Counter[str] = Counter(dict(zip(COUNTED, counts, strict=True)))
    counter["shoes"] = shoes
    return counter
