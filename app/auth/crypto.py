"""Encryption of stored credentials (trust ids) with ``cryptography``'s Fernet.

``STOKER_AUTH_ENCRYPTION_KEY`` holds one key or several separated by commas (the first
encrypts, every one decrypts: rotation, as ``MultiFernet``). A key is a Fernet key
(``Fernet.generate_key()``, 44 url-safe base64 characters) or, like Heat's
``auth_encryption_key``, any passphrase of at least 32 characters (stretched with HKDF-SHA256).
"""
from __future__ import annotations

import base64

from app import errors


class EncryptionKeyError(errors.StokerError):
    """Keystone mode without a usable ``STOKER_AUTH_ENCRYPTION_KEY`` (a start-up error)."""

    http_status = 500
    heat_type = "InvalidEncryptionKey"


class DecryptionError(errors.StokerError):
    """A stored value that none of the configured keys decrypts."""

    http_status = 500
    heat_type = "DecryptionError"


def _fernet_key(text: str) -> bytes:
    from cryptography.fernet import Fernet
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    raw = text.strip().encode()
    try:
        Fernet(raw)
        return raw
    except ValueError:
        pass
    if len(raw) < 32:
        raise EncryptionKeyError(
            "STOKER_AUTH_ENCRYPTION_KEY must be a Fernet key or a passphrase of at least 32 "
            "characters.")
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                   info=b"stoker-auth-encryption").derive(raw)
    return base64.urlsafe_b64encode(derived)


def cipher(keys: str) -> object:
    """A ``MultiFernet`` for the comma-separated ``keys``.

    :raises EncryptionKeyError: no key, or one that is neither a Fernet key nor long enough.
    """
    from cryptography.fernet import Fernet, MultiFernet

    parts = [k for k in (keys or "").split(",") if k.strip()]
    if not parts:
        raise EncryptionKeyError(
            "STOKER_AUTH_ENCRYPTION_KEY is not set: keystone mode stores each stack's trust "
            "encrypted and needs a key (python -c 'from cryptography.fernet import Fernet; "
            "print(Fernet.generate_key().decode())').")
    return MultiFernet([Fernet(_fernet_key(k)) for k in parts])


def encrypt(keys: str, plaintext: str) -> str:
    """``plaintext`` as a Fernet token (text; a new random IV each time)."""
    return cipher(keys).encrypt(plaintext.encode()).decode()  # type: ignore[attr-defined,no-any-return]


def decrypt(keys: str, token: str) -> str:
    """The plaintext of a :func:`encrypt` token.

    :raises DecryptionError: no configured key opens it (the key was changed or lost).
    """
    from cryptography.fernet import InvalidToken
    try:
        return cipher(keys).decrypt(token.encode()).decode()  # type: ignore[attr-defined,no-any-return]
    except InvalidToken:
        raise DecryptionError("A stored trust cannot be decrypted with STOKER_AUTH_ENCRYPTION_KEY "
                              "(was the key changed?).") from None
