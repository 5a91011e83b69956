"""The variants' names as people read them (``commission`` is 커미션 in Korean, 免佣 is ``no_commission`` in
Chinese); the machine word (``[table] variant``, the JSON stream's ``variant``) stays as it is."""

from __future__ import annotations

from typing import Final

from controller.i18n.catalogue import Catalogue
from controller.i18n.message import message

VARIANT_NAMES: Final = {
    "commission": message("variant.commission", "commission"),
    "no_commission": message("variant.no_commission", "no_commission"),
    "ez": message("variant.ez", "ez"),
}
"""Each variant's name; in English the machine word itself (texts that spell it ``no commission`` replace the
``_``)."""


def variant_name(variant: str, words: Catalogue) -> str:
    """``variant`` in ``words``' language (an unknown one as given)."""
    name = VARIANT_NAMES.get(variant)
    return words.text(name) if name is not None else variant
