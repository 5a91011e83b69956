"""The risk study's part of docs/bets.md, written from the stored study (``docs/data/study.json``, the JSON of
``python -m benchmarks.study --save``: ``croupier study --shoes 10000 --seed 1 --bets all --json``, trimmed by
:func:`trimmed`) and the published figures it is compared with. ``python -m controller.cli.gendata`` writes it
into docs/bets.md; a test checks that the default ``[bets] alert_above`` is the study's recommendation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

STUDY_FILE = Path(__file__).resolve().parents[2] / "docs" / "data" / "study.json"
THIS_ROUND_FILE = STUDY_FILE.with_name("study-this-round.json")
"""The same study of the Dragon 7 and the Panda 8 with ``[shoe] cut_card = "this_round"`` (no round after the cut
card's): ``croupier study --config FILE --shoes 10000 --seed 1 --bets dragon_7,panda_8 --json``, trimmed."""
KEPT = ("house_edge", "settled_as", "pays", "perfect", "counts", "thresholds", "recommended_alert_above",
        "through_the_shoe")
"""What the stored study keeps of each bet (the per-step grid is left out: the thresholds table and the
recommendation come from it)."""
SIDE_BETS = ("player_pair", "banker_pair", "either_pair", "perfect_pair", "dragon_7", "panda_8", "dragon_bonus_player",
             "dragon_bonus_banker", "big", "small", "lucky_6", "tie")


def trimmed(report: dict[str, Any]) -> dict[str, Any]:
    """``croupier study --json``'s report without what docs/bets.md does not show."""
    return {**{key: value for key, value in report.items() if key != "bets"},
            "bets": {name: {key: bet[key] for key in KEPT} for name, bet in report["bets"].items()}}


def stored(path: Path = STUDY_FILE) -> dict[str, Any]:
    """The stored study (by default the main one)."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def recommended_thresholds(report: dict[str, Any]) -> dict[str, float]:
    """Each catalogue bet's recommended alert threshold in the study (``banker`` under its commission name)."""
    return {bet["settled_as"]: bet["recommended_alert_above"]["above"] for bet in report["bets"].values()
            if not bet["settled_as"].startswith("natural_")}


def _pct(value: float, digits: int = 2) -> str:
    return f"{value * 100:.{digits}f}%"


def _units(play: dict[str, Any]) -> str:
    return f"{play['units_per_shoe']:+.3f} ± {play['units_per_shoe_se']:.3f}"


def _observed(play: dict[str, Any]) -> str:
    return f"{play['observed_units_per_shoe']:+.2f} ± {play['observed_units_per_shoe_se']:.2f}"


def _players(report: dict[str, Any]) -> list[str]:
    lines = ["| bet | house edge (fresh shoe) | player | rounds bet a shoe | mean edge when betting | units a shoe, "
             "expected ± s.e. | observed ± s.e. |", "|---|---|---|---|---|---|---|"]
    for name, bet in report["bets"].items():
        rows = [("perfect counter", bet["perfect"])]
        rows += [(f"`{system}` ({'true' if play['true_count'] else 'running'} count >= {play['threshold']:g})", play)
                 for system, play in bet["counts"].items()]
        for label, play in rows:
            lines.append(f"| `{name}` | {_pct(bet['house_edge'], 3)} | {label} | {play['rounds_per_shoe']:.2f} | "
                         f"{_pct(play['mean_edge'])} | {_units(play)} | {_observed(play)} |")
    return lines


def _thresholds(report: dict[str, Any]) -> list[str]:
    shown = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2)
    header = " | ".join(f"above {above * 100:g}%" for above in shown)
    lines = [f"| bet | alerts a shoe (share of the counter's win): {header} | recommended `alert_above` "
             "(alerts a shoe; share) |", "|---|" + "---|" * (len(shown) + 1)]
    for name, bet in report["bets"].items():
        rows = {row["above"]: row for row in bet["thresholds"]}
        cells = [f"{rows[above]['alerts_per_shoe']:.3f} ({_pct(rows[above]['share_of_win'], 0)})" for above in shown]
        chosen = bet["recommended_alert_above"]
        lines.append(f"| `{name}` | " + " | ".join(cells) + f" | **{chosen['above']:g}** "
                     f"({chosen['alerts_per_shoe']:.3f}; {_pct(chosen['share_of_win'], 1)}) |")
    return lines


def study_markdown(report: dict[str, Any], this_round: dict[str, Any]) -> list[str]:
    """The lines of docs/bets.md's risk study sections (``this_round``: the comparison run without the round
    after the cut card's)."""
    bets = report["bets"]
    short = this_round["bets"]
    short_jacobson, short_how = short["dragon_7"]["counts"]["jacobson_2011"], short["dragon_7"]["counts"][
        "how_unbalanced_2012"]
    short_panda = short["panda_8"]["counts"]["how_co_count_2013"]
    dragon = bets["dragon_7"]
    jacobson, how = dragon["counts"]["jacobson_2011"], dragon["counts"]["how_unbalanced_2012"]
    panda = bets["panda_8"]["counts"]["how_co_count_2013"]
    nine, eight = bets["natural_9"], bets["natural_8"]
    lines = [
        "## Risk study",
        "",
        f"`croupier study` deals seeded shoes under the configured rules (here: {report['shoes']:,} shoes, seed "
        f"{report['seed']}, {report['decks']} decks, {report['variant']}, burn `{report['burn']}`, the cut card "
        f"{report['cut_card_from_end']} cards from the end and `{report['cut_card']}`; {report['rounds']:,} rounds, "
        f"{report['rounds_per_shoe']:.1f} a shoe) with every bet's exact edge before every round, from the cards the "
        "players could have seen, as the `edge` event gives it (at the house's `[bets.pays]`, as the advantage alert "
        "weighs them): the same shoes as `croupier simulate --seed` (a "
        "test compares them card for card and fraction for fraction). A *perfect counter* bets one unit exactly "
        "when the edge is positive; the published counts bet when their count says so, and the exact edge tells "
        "what each bet was worth. Expected units are the sum of the exact edges bet, with the standard error over "
        "shoes; observed units are what the bets actually won on these shoes (a 40:1 bet's result is noisy: "
        "compare the expected column). Stored: [data/study.json](data/study.json) "
        "(`python -m benchmarks.study --save docs/data/study.json`, then `python -m controller.cli.gendata`).",
        "",
        "The shoes are dealt in chunks of 25 by `--workers` processes (default: every core), each at most two "
        "chunks ahead of the command, which adds them up in shoe order: the figures do not depend on the number of "
        "workers, and memory does not grow with the shoes however slowly the command takes them. `--trace FILE` is "
        "opened before any shoe is dealt (a path that cannot be written is refused in one line, exit status 2) and "
        "written as the chunks are added up. Ctrl+C, SIGTERM and SIGHUP (to the command or to its whole process "
        "group: the workers leave the stop to the command) stop the study in order: the report is printed for the "
        "shoes added up so far, the first ones (the figures of a study of as many shoes; `--json`: `finished` "
        "false, `shoes` of `shoes_asked`), the trace holds their rounds, then the command says what stopped it and "
        "exits 130, 143 or 129 (128 + the signal's number).",
        "",
        *_players(report),
        "",
        "### Alert thresholds",
        "",
        "For each threshold of the live edge: the advantage alerts an honest table raises per shoe (an alert opens "
        "when a bet's edge rises above the threshold and closes when it falls back, as the table's `advantage` "
        "alerts do: `alert_cleared`, [events.md](events.md)), and the share of the perfect counter's expected win "
        "that the rounds above it carry. The recommended `[bets] alert_above` is the lowest threshold (in steps of "
        "0.1%) "
        f"with at most {report['target_alerts_per_shoe']:g} alerts a shoe per bet (`croupier study --target`); it "
        "is the default of `[bets.alert_above]` (config/default.toml; a test keeps the two equal), for every bet "
        "of the catalogue (the table's `banker` row is the commission banker; `banker_no_commission` and "
        "`banker_ez` are the other variants').",
        "",
        *_thresholds(report),
        "",
        "What it says to a game-protection manager: the live edge of every side bet turns positive in most shoes "
        "without anyone counting (the *alerts above 0%* column), so an alert at 0% mostly flags the shoe, not a "
        "player. A threshold quiet enough for an honest table leaves the rounds that carry most of a counter's "
        "win below it: the alert says that a bet is worth watching now, and what a counter staking 100 on it "
        "expects to win (the `alert` event's `detail`); telling a counter from a lucky player takes their bets "
        "over the shoe. A house that prefers more alerts runs `croupier study --target 0.2` (or its own rules, "
        "`--config`) and copies the recommendations into `[bets.alert_above]`.",
        "",
        "### Compared with published figures",
        "",
        "- **The exact edges.** The fresh 8-deck counts match the published combinatorial analyses to the deal: "
        "Dragon 7 wins in 112,633,011,329,024 of the 4,998,398,275,503,360 ordered six-card deals (Jacobson 2011, "
        "Table 1, house edge 7.611%), a banker natural 8 in 472,508,456,071,680 and a natural 9 in "
        "474,361,430,409,216 (Wizard of Odds; Thorp and Walden 1966 give 0.09453 and 0.09490, house edges "
        "5.47% and 5.10% at 9:1). The study's house edges: "
        f"Dragon 7 {_pct(dragon['house_edge'], 3)}, natural 8 {_pct(eight['house_edge'], 3)}, natural 9 "
        f"{_pct(nine['house_edge'], 3)}.",
        "- **Dragon 7, Jacobson's count** (E. Jacobson, *Card Counting the Dragon Side Bet in EZ Baccarat*, Wizard "
        "of Odds, 2011: 4 to 7 count -1, 8 and 9 count +2). Played here at a true count of +4 or more: "
        f"{jacobson['rounds_per_shoe']:.1f} bets a shoe at a mean edge of {_pct(jacobson['mean_edge'])}, "
        f"{_units(jacobson)} units a shoe; the perfect counter {_units(dragon['perfect'])} on "
        f"{dragon['perfect']['rounds_per_shoe']:.1f} bets. Published: Global Gaming Business (2011) read "
        "Jacobson's result as a quarter of a unit per 8-deck shoe; S. How's tracking sheet of Jacobson's true "
        "count (discountgambling.net, 2011) simulates at 0.53 units a shoe on 5.2 bets; How's unbalanced version "
        "(2012: aces +1 too, from -32, bet at 0 or more, 16 cards behind the cut card, the exposed burn card "
        f"counted) at 0.52 units on 6.8 bets; here {_units(how)} on {how['rounds_per_shoe']:.1f} bets.",
        "- **Panda 8, How's co-count** (2013: the unbalanced Dragon 7 count plus 6 7 Q K +1, 3 -1, 8 -3, bet at "
        f"35 or more): published +0.134 units a shoe on 3.6 bets; here {_units(panda)} on "
        f"{panda['rounds_per_shoe']:.1f} bets.",
        "- **Natural 8 and 9** (Thorp and Walden 1966, the banker natural bets at 9:1, studied here as the "
        "reference bets `natural_8` and `natural_9`, which no table settles): the perfect counter "
        f"{_units(eight['perfect'])} and {_units(nine['perfect'])} units a shoe on "
        f"{eight['perfect']['rounds_per_shoe']:.1f} and {nine['perfect']['rounds_per_shoe']:.1f} bets. Thorp and "
        "Walden's own per-shoe figures (their paper's tables) could not be read here; their count (nines -12, the "
        "rest +1, as Jacobson's review quotes it) is not played, for its threshold could not be checked.",
        "",
        "Where the figures differ, and why. The counts' published figures are simulations that stop dealing at "
        "the cut card's round; this study deals one more (`[shoe] cut_card = \"one_more\"`, the default), the "
        "last round of the shoe, when the counts are furthest from zero. The same 10,000 shoes with "
        "`cut_card = \"this_round\"` ([data/study-this-round.json](data/study-this-round.json), "
        f"{this_round['rounds_per_shoe']:.1f} rounds a shoe) give: Jacobson's count {_units(short_jacobson)} units "
        f"a shoe on {short_jacobson['rounds_per_shoe']:.1f} bets (How's sheet of it: 0.53 on 5.2), How's "
        f"unbalanced count {_units(short_how)} on {short_how['rounds_per_shoe']:.1f} bets (published 0.52 on 6.8), "
        f"the Panda 8 co-count {_units(short_panda)} on {short_panda['rounds_per_shoe']:.1f} bets (published 0.134 "
        f"on 3.6), the perfect counter {_units(short['dragon_7']['perfect'])} on the Dragon 7 and "
        f"{_units(short['panda_8']['perfect'])} on the Panda 8: the wins agree with the published ones within two "
        "standard errors, so the one round more is worth about "
        f"{dragon['perfect']['units_per_shoe'] - short['dragon_7']['perfect']['units_per_shoe']:.2f} units a shoe "
        "to a perfect Dragon 7 counter, a cheap protection for a house that stops at the cut card. The counts "
        "still bet a round or so more a shoe than published: the published thresholds are `> 0` in How's text "
        "and `>= 0` in his table, and his tracking sheet rounds the true count's running-count thresholds per "
        "hand; this study uses `>=`. The published *observed* wins carry the noise of a 40:1 or 25:1 bet, where "
        "the *expected* column sums the exact edge of every bet made. The Global Gaming Business figure (a "
        "quarter of a unit a shoe) is a critic's reading of Jacobson's result per hour of play; Jacobson's own "
        "per-shoe figures and his statement of the +4 threshold could not be read from the stored copies of his "
        "article (only its opening and Table 1), nor the running-count thresholds of How's sheet: +4 is what "
        "How's unbalanced count stands for (it starts at -4 a deck and bets from 0), and the figures above agree "
        "with his.",
    ]
    return lines
