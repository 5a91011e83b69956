"""The table's terms are defined once (:mod:`controller.terms`): the core and the config read the same objects."""

from __future__ import annotations

from decimal import Decimal
from typing import get_args

import config.schema
from controller import terms
from controller.core.bets import catalogue
from controller.core.misdeals import POLICIES, approval_action


def test_the_config_checks_against_the_terms_themselves() -> None:
    assert config.schema.BET_PAY_CLASSES is terms.BET_PAY_CLASSES
    assert config.schema.OFFERABLE_BETS is terms.OFFERABLE_BETS
    assert config.schema.STANDARD_BETS is terms.STANDARD_BETS
    assert config.schema.BANKER_VARIANT_BETS is terms.BANKER_VARIANT_BETS
    assert config.schema.APPROVAL_ACTIONS is terms.APPROVAL_ACTIONS


def test_the_catalogue_gives_every_bet_of_the_terms_its_default_pays() -> None:
    assert tuple(catalogue.BETS) == terms.BET_NAMES == get_args(terms.BetName)
    assert {name: dict(bet.pays) for name, bet in catalogue.BETS.items()} == {
        name: {pay_class: Decimal(pay) for pay_class, pay in pays.items()} for name, pays in terms.DEFAULT_PAYS.items()}
    assert catalogue.STANDARD is terms.STANDARD_BETS and catalogue.OFFERABLE is terms.OFFERABLE_BETS
    assert catalogue.BANKER_BY_VARIANT is terms.BANKER_BY_VARIANT
    assert {name for name, bet in catalogue.BETS.items() if bet.table_bet} == set(terms.BANKER_VARIANT_BETS)


def test_every_action_the_core_asks_an_approval_for_is_a_term() -> None:
    """``[auth] supervisor_only`` accepts exactly the actions the table can ask a supervisor to approve."""
    resolutions = {resolution for policy in POLICIES.values() for resolution in policy.resolutions}
    assert resolutions == set(terms.RESOLUTIONS)
    asked = {approval_action(resolution, kind)
             for kind, policy in POLICIES.items() for resolution in policy.resolutions}
    assert asked | {"close_shoe"} == set(terms.APPROVAL_ACTIONS) == set(get_args(terms.ApprovalAction))
    assert set(config.schema.DEFAULT_SUPERVISOR_ONLY) <= set(terms.APPROVAL_ACTIONS)
