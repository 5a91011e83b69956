"""``docs/bets.md``, written from the catalogue and the exact odds (a test keeps the file equal to it).

Regenerate: ``python -m controller.cli.gendata`` (it rewrites every generated file).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from controller.core.bets.catalogue import BANKER_BY_VARIANT, CATALOGUE, STANDARD
from controller.core.bets.exact import Shoe, bet_odds

EDGE_DECKS = (8, 6, 1)


def _pays(pays: dict[str, object]) -> str:
    return "; ".join(f"`{name}` {amount}" for name, amount in pays.items())


def _percent(value: Fraction) -> str:
    return f"{float(value) * 100:.4f}%"


def bets_markdown(study: Sequence[str] = ()) -> str:
    """The whole of docs/bets.md; ``study``: the lines of its risk study sections (written by
    :func:`controller.cli.studydoc.study_markdown` from the stored study, which the core does not read)."""
    edges = {decks: bet_odds(Shoe.of(decks)) for decks in EDGE_DECKS}
    variants = {bet: variant for variant, bet in BANKER_BY_VARIANT.items()}
    lines = [
        "# Bets",
        "",
        "Every bet Croupier knows, as data in `controller/core/bets/catalogue.py`: when it wins, its default",
        "pay table (net units won per unit staked, by *pay class*) and the source of its rules. The house",
        "edge is minus the expected net win per unit under the default pays, computed exactly (every deal",
        "enumerated, `croupier odds`). This page is generated from the catalogue and checked by a test.",
        "",
        f"| bet | wins when | default pays | house edge, {', '.join(f'{d} deck(s)' for d in EDGE_DECKS)} | source |",
        "|---|---|---|---|---|",
    ]
    for bet in CATALOGUE:
        name = f"`{bet.name}`" + (f" (`[table] variant = \"{variants[bet.name]}\"`)" if bet.name in variants else "")
        edge = " / ".join(_percent(edges[decks][bet.name].house_edge) for decks in EDGE_DECKS)
        lines.append(f"| {name} | {bet.wins_when} | {_pays(dict(bet.pays))} | {edge} | {bet.source} |")
    lines += [
        "",
        "A `push` returns the stake (net 0); any other round loses the stake (net -1).",
        "",
        "## Offering bets and setting their pays",
        "",
        "`[bets] offered` lists the bets each `settlement` event settles (default: "
        + ", ".join(f"`{name}`" for name in STANDARD) + "). The `banker` bet is settled",
        "by `[table] variant`: `commission` (the `banker` row), `no_commission` (`banker_no_commission`) or",
        "`ez` (`banker_ez`). `[bets.pays]` replaces pay classes of a bet's table, in the config file only:",
        "",
        "```toml",
        "[bets]",
        'offered = ["player", "banker", "tie", "player_pair", "banker_pair", "dragon_7", "panda_8"]',
        "",
        "[bets.pays]",
        "tie = { win = 9 }",
        'big = { big = "0.5" }',
        "```",
        "",
        "The summary of `croupier simulate` sets the net per unit of each standard bet offered (player, banker, tie,",
        "the pairs) against its expected value under these pays (and names the pays that differ from the defaults);",
        "`croupier odds` shows the default pays.",
        "",
        "## The live edge",
        "",
        "Before each round's first card the table emits `edge` ([events.md](events.md)): every bet of this",
        "page, offered or not, with its exact expected net win per unit under the default pays, from the shoe",
        "less the cards the players could have seen (dealt to the layout, the turned burn card, cards exposed",
        "or set aside face up; face-down burns stay unknown to them, so they count as still in the shoe).",
        "When the value of a bet the table offers (`[bets] offered`, `banker` as its variant's bet) is above",
        "its `[bets] alert_above` (by default the threshold `croupier study` recommends for it, below) an",
        "`alert` of kind `advantage` names the bet, its edge and what a counter",
        "staking 100 on it now expects to win; the alert weighs a bet the house pays otherwise (`[bets.pays]`)",
        "at the house's pays, what the players there win. A round that starts with fewer than 6 cards the",
        "players have not seen left in the shoe (the most a round needs) gets neither: its odds are not defined.",
        "`[bets] live_edge = false` turns both off. How it is computed (a compiled kernel, exact whole numbers)",
        "and how fast: [performance.md](performance.md).",
        "",
    ]
    if study:
        lines += [*study, ""]
    return "\n".join(lines)
