"""Numbers and money for people, in a language's locale (Babel's CLDR data); the JSON stream never uses them."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

NET_PATTERN = "+#,##0.####;-#,##0.####"
"""A net amount per unit: always signed, grouped, up to four decimals (as the settlement gives them)."""


def format_net(net: str, language: str) -> str:
    """A settlement's ``net`` (``"+0.95"``, ``"-1"``, ``"0"``) in ``language``'s digits and separators;
    zero unsigned. A value that is not a number is shown as it is."""
    from babel.numbers import format_decimal

    try:
        amount = Decimal(net)
    except InvalidOperation:
        return net
    if amount == 0:
        return format_decimal(0, locale=language)
    return format_decimal(amount, format=NET_PATTERN, locale=language)


def format_count(count: int, language: str) -> str:
    """A whole number in ``language``'s grouping (``12,345``; ``12.345`` in Spanish)."""
    from babel.numbers import format_decimal

    return format_decimal(count, locale=language)


def format_fixed(value: float, places: int, language: str, signed: bool = False) -> str:
    """``value`` with ``places`` decimals (rounded as Python's ``f"{value:.2f}"``, so English is unchanged) and
    ``language``'s decimal sign (``45,86`` in Spanish); ``signed`` always shows ``+`` or ``-``. No grouping."""
    text = f"{value:{'+' if signed else ''}.{places}f}"
    if language == "en":  # the point: Babel (and its import) is needed only for another language
        return text
    from babel.numbers import get_decimal_symbol

    return text.replace(".", get_decimal_symbol(language))


def format_decimal_text(number: str, language: str) -> str:
    """A number already written in the machine form (``"0.95"``, ``"+1.683"``) with ``language``'s decimal
    sign (``0,95`` in Spanish), its digits and sign as given; English, or a text that is not a number, as it is."""
    if language == "en":
        return number
    try:
        Decimal(number)
    except InvalidOperation:
        return number
    from babel.numbers import get_decimal_symbol

    return number.replace(".", get_decimal_symbol(language))
