"""The simulation benchmark's peers: a plain straight-line Python simulator over the same seeded shoes
(its own hand-written drawing rules, as a programmer would write one), and pybaccarat's engine (run in
its own environment; see :mod:`benchmarks.simulation`)."""

from __future__ import annotations

import random

RANK_VALUES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0]


def baseline_shoe(seed: int, decks: int, shoe_index: int, cut_from_end: int) -> tuple[int, int, int, int]:
    """(rounds, banker, player, tie) of one seeded shoe (first-card burn, one more round after the cut)."""
    cards = [RANK_VALUES[rank] for _ in range(decks) for _suit in range(4) for rank in range(13)]
    random.Random(f"croupier:{seed}:{decks}:{shoe_index}").shuffle(cards)
    cards.extend([0] * 6)
    cut = len(cards) - 6 - cut_from_end
    at = 1 + (cards[0] or 10)
    banker = player = tie = rounds = 0
    last = -1
    while last != 0:
        if at > cut:
            last = (1 if rounds == 0 else 0) + 1 if last < 0 else last - 1
            if last == 0:
                break
        p = (cards[at] + cards[at + 2]) % 10
        b = (cards[at + 1] + cards[at + 3]) % 10
        at += 4
        if p < 8 and b < 8:
            if p <= 5:
                third = cards[at]
                at += 1
                p = (p + third) % 10
                if (b <= 2 or (b == 3 and third != 8) or (b == 4 and 2 <= third <= 7)
                        or (b == 5 and 4 <= third <= 7) or (b == 6 and 6 <= third <= 7)):
                    b = (b + cards[at]) % 10
                    at += 1
            elif b <= 5:
                b = (b + cards[at]) % 10
                at += 1
        rounds += 1
        if b > p:
            banker += 1
        elif p > b:
            player += 1
        else:
            tie += 1
    return rounds, banker, player, tie


def baseline(seed: int, decks: int, cut_from_end: int, rounds: int) -> tuple[int, int, int, int]:
    """Whole shoes from the first until at least ``rounds`` rounds are dealt: (rounds, banker, player, tie)."""
    totals = [0, 0, 0, 0]
    index = 0
    while totals[0] < rounds:
        for position, count in enumerate(baseline_shoe(seed, decks, index, cut_from_end)):
            totals[position] += count
        index += 1
    return totals[0], totals[1], totals[2], totals[3]


PYBACCARAT_LOOP = """
import random, sys, time
from pybaccarat.baccarat import Game, Hand
from pybaccarat.playingcards import Shoe
rounds_wanted = int(sys.argv[1])
random.seed(int(sys.argv[2]))
rounds = 0
start = time.process_time()
while rounds < rounds_wanted:
    shoe = Shoe(8)
    shoe.shuffle()
    shoe.set_cut_card(-16)
    player, banker = Hand(), Hand()
    game = Game(shoe=shoe, player=player, banker=banker)
    burn = shoe.deal().get_rank()
    for _ in range(burn if burn < 10 else 10):
        shoe.deal()
    while not shoe.cut_card_seen():
        player.empty()
        banker.empty()
        game.play_hand()
        rounds += 1
    player.empty()
    banker.empty()
    game.play_hand()
    rounds += 1
print(rounds, time.process_time() - start)
"""
"""pybaccarat's engine dealing 8-deck shoes as its own ``Game.play_hand`` does (its cards, hands and rules),
cut card 16 from the end, first-card burn: prints rounds and CPU seconds."""
