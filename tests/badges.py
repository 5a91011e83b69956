"""The badge table the tests sign in with: ``[auth]`` on, Alice Martin the dealer and Bob Stone the supervisor."""

from __future__ import annotations


def auth_section(dealer: str, supervisor: str, extra: str = "") -> str:
    """The ``[auth]`` TOML with ``dealer``'s and ``supervisor``'s badges (``extra``: more ``[auth]`` keys)."""
    return f"""[auth]
enabled = true
reader = "pcsc://?reader=Virtual PCD 00 01"
{extra}
[auth.badges.{dealer}]
name = "Alice Martin"
role = "dealer"

[auth.badges.{supervisor}]
name = "Bob Stone"
role = "supervisor"
"""
