"""Heat's physical resource names: short ids and the length-limit rule.

Pure: standard library only. :class:`app.resource_types.base.Resource.physical_resource_name`
builds ``"<stack>-<resource>-<short id>"`` from these.
"""
from __future__ import annotations

import base64
import secrets
import uuid as uuid_mod

#: The alphabet of a short id (lower-case base32).
SHORT_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"


def random_short_id() -> str:
    """12 random characters of :data:`SHORT_ID_ALPHABET` (what Heat's ``generate_id`` gives)."""
    return "".join(secrets.choice(SHORT_ID_ALPHABET) for _ in range(12))


def short_id(source_uuid: str | uuid_mod.UUID) -> str:
    """Heat's ``short_id.get_id``: the 60 random bits of a version-4 UUID's ``time`` field,
    base32-encoded, lower case: 12 characters of ``[a-z2-7]``.

    :raises ValueError: not a version-4 UUID (Heat: ``"Invalid UUID version (n)"``).
    """
    u = source_uuid if isinstance(source_uuid, uuid_mod.UUID) else uuid_mod.UUID(str(source_uuid))
    if u.version != 4:
        raise ValueError(f"Invalid UUID version ({u.version})")
    raw = (u.time << 4).to_bytes(8, "big")   # 60 bits, left-aligned in 64
    return base64.b32encode(raw).decode("ascii")[:12].lower()


def reduce_physical_resource_name(name: str, limit: int) -> str:
    """Heat's rule: a name longer than ``limit`` becomes its first 2 characters, ``-``, and its
    last ``limit - 3`` characters (so the unique suffix survives).

    :raises ValueError: ``limit < 4`` (Heat: ``"limit cannot be less than 4"``).
    """
    if len(name) <= limit:
        return name
    if limit < 4:
        raise ValueError("limit cannot be less than 4")
    return name[:2] + "-" + name[-(limit - 3):]
