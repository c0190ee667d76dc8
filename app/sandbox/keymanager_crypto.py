"""Key material the sandbox's Barbican orders generate (with the ``cryptography`` package):
symmetric keys, RSA/DSA/EC key pairs (PEM, optionally encrypted with a pass phrase) and
certificates signed by a per-process sandbox certificate authority.

Each function raises :class:`GenerationError` with the HTTP status Barbican records on a failed
order (``error_status_code``) and its reason (``error_reason``).
"""
from __future__ import annotations

import base64
import datetime as _dt
import os
import threading
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, rsa
from cryptography.x509.oid import NameOID

from app import errors

#: symmetric algorithms a key order may ask for -> allowed bit lengths (Barbican's simple crypto)
SYMMETRIC = {"aes": (128, 192, 256), "des": (56, 64), "3des": (168, 192),
             "hmacsha1": None, "hmacsha256": None, "hmacsha384": None, "hmacsha512": None}
ASYMMETRIC = {"rsa": (1024, 2048, 3072, 4096), "dsa": (1024, 2048, 3072),
              "ec": (256, 384, 521)}
_CURVES = {256: ec.SECP256R1, 384: ec.SECP384R1, 521: ec.SECP521R1}
_ca: dict[str, Any] = {}
_ca_lock = threading.Lock()


class GenerationError(errors.StokerError):
    """An order that cannot be fulfilled: ``status`` (HTTP) and ``reason``."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = self.http_status = status
        self.reason = reason


def symmetric_key(algorithm: str, bit_length: int) -> bytes:
    """Random key bytes. :raises GenerationError: 400 for an algorithm or length not supported."""
    allowed = SYMMETRIC.get(algorithm.lower())
    if algorithm.lower() not in SYMMETRIC or (allowed and bit_length not in allowed) \
            or bit_length <= 0 or bit_length % 8:
        raise GenerationError(400, f"Could not find a secret store plugin for generating secret "
                                   f"with algorithm '{algorithm}' and bit-length '{bit_length}'.")
    return os.urandom(bit_length // 8)


def key_pair(algorithm: str, bit_length: int, pass_phrase: str | None) -> tuple[bytes, bytes, Any]:
    """``(private PEM, public PEM, private key object)``; the private PEM is PKCS#8, encrypted
    with ``pass_phrase`` when given. :raises GenerationError: 400 when not supported."""
    algo = algorithm.lower()
    if bit_length not in ASYMMETRIC.get(algo, ()):
        raise GenerationError(400, f"Could not find a secret store plugin for generating secret "
                                   f"with algorithm '{algorithm}' and bit-length '{bit_length}'.")
    key: Any
    if algo == "rsa":
        key = rsa.generate_private_key(public_exponent=65537, key_size=bit_length)
    elif algo == "dsa":
        key = dsa.generate_private_key(key_size=bit_length)
    else:
        key = ec.generate_private_key(_CURVES[bit_length]())
    encryption: Any = serialization.BestAvailableEncryption(pass_phrase.encode()) if pass_phrase \
        else serialization.NoEncryption()
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                encryption)
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, public, key


def _authority() -> tuple[Any, x509.Certificate]:
    """The sandbox CA's key and self-signed certificate (made once per process)."""
    with _ca_lock:
        if not _ca:
            key = ec.generate_private_key(ec.SECP256R1())
            name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Stoker Sandbox CA")])
            now = _dt.datetime.now(_dt.UTC)
            cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                    .public_key(key.public_key()).serial_number(x509.random_serial_number())
                    .not_valid_before(now - _dt.timedelta(days=1))
                    .not_valid_after(now + _dt.timedelta(days=3650))
                    .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                    .sign(key, hashes.SHA256()))
            _ca.update(key=key, cert=cert)
        return _ca["key"], _ca["cert"]


def _subject(subject_dn: str | None) -> x509.Name:
    try:
        return x509.Name.from_rfc4514_string(subject_dn or "CN=sandbox")
    except ValueError:
        raise GenerationError(400, f"Invalid subject DN: {subject_dn}") from None


def certificate(public_key: Any, subject_dn: str | None) -> tuple[bytes, bytes]:
    """``(certificate PEM, intermediates PEM)``: ``public_key`` certified for ``subject_dn``
    (RFC 4514, e.g. ``CN=www.example.com``) by the sandbox CA; the intermediates are the CA's
    certificate."""
    ca_key, ca_cert = _authority()
    now = _dt.datetime.now(_dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(_subject(subject_dn))
            .issuer_name(ca_cert.subject).public_key(public_key)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - _dt.timedelta(minutes=5))
            .not_valid_after(now + _dt.timedelta(days=365))
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    return cert.public_bytes(pem), ca_cert.public_bytes(pem)


def load_private(pem: bytes, pass_phrase: str | None) -> Any:
    """A private key from PEM. :raises GenerationError: 400 when it cannot be read."""
    try:
        return serialization.load_pem_private_key(pem, pass_phrase.encode() if pass_phrase else None)
    except (ValueError, TypeError) as err:
        raise GenerationError(400, f"Could not load the private key: {err}") from None


def csr_public_key(request_data: str) -> tuple[Any, x509.Name]:
    """The public key and subject of a PKCS#10 request (PEM, or base64 of PEM/DER).

    :raises GenerationError: 400 for a request that cannot be read."""
    raw = request_data.encode()
    try:
        if b"BEGIN" not in raw:
            raw = base64.b64decode(raw, validate=False)
        csr = x509.load_pem_x509_csr(raw) if b"BEGIN" in raw else x509.load_der_x509_csr(raw)
    except ValueError:
        raise GenerationError(400, "Invalid PKCS10 Data: Bad format") from None
    return csr.public_key(), csr.subject
