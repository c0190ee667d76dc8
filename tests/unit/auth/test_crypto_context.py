"""Stored trust ids are Fernet-encrypted with STOKER_AUTH_ENCRYPTION_KEY (rotation: several
keys); keystone mode without a key is a clear start-up error; the request context comes from
auth_token's headers, with Heat's tenant-local rule."""
from __future__ import annotations

import pytest
from cryptography.fernet import Fernet

from app import auth, config
from app.auth import crypto, keystone, policy

PROJECT = "a" * 32
OTHER = "b" * 32


def test_encrypt_round_trip_never_shows_the_plaintext():
    key = Fernet.generate_key().decode()
    trust = "0123456789abcdef0123456789abcdef"
    one, two = crypto.encrypt(key, trust), crypto.encrypt(key, trust)
    assert trust not in one and one != two  # a fresh IV each time
    assert crypto.decrypt(key, one) == trust


def test_a_passphrase_of_32_characters_is_a_key_too_and_rotation_keeps_old_values():
    old = "an old passphrase of at least 32 chars"
    sealed = crypto.encrypt(old, "trust-1")
    new = Fernet.generate_key().decode()
    assert crypto.decrypt(f"{new},{old}", sealed) == "trust-1"
    assert crypto.decrypt(f"{new},{old}", crypto.encrypt(f"{new},{old}", "t2")) == "t2"
    assert crypto.decrypt(new, crypto.encrypt(f"{new},{old}", "t3")) == "t3"  # first encrypts


def test_a_wrong_key_is_a_clear_error():
    sealed = crypto.encrypt(Fernet.generate_key().decode(), "t")
    with pytest.raises(crypto.DecryptionError, match="was the key changed"):
        crypto.decrypt(Fernet.generate_key().decode(), sealed)


@pytest.mark.parametrize("key", ["", "short", " , "])
def test_keystone_mode_without_a_usable_key_refuses_to_start(tmp_path, key):
    from app.api import create_app
    st = config.load({}, data_dir=str(tmp_path), auth_strategy="keystone",
                     auth_encryption_key=key, database_url="sqlite://")
    with pytest.raises(crypto.EncryptionKeyError, match="STOKER_AUTH_ENCRYPTION_KEY"):
        create_app(st)


def test_noauth_needs_no_key(tmp_path):
    auth.check_settings(config.load({}, data_dir=str(tmp_path)))


def test_stoker_up_generates_and_keeps_an_embedded_key(tmp_path):
    st = config.load({}, data_dir=str(tmp_path))
    first = auth.embedded_settings(st, "keystone")
    assert first.auth_strategy == "keystone" and first.auth_encryption_key
    assert (tmp_path / "auth-encryption.key").stat().st_mode & 0o777 == 0o600
    assert auth.embedded_settings(st, "keystone").auth_encryption_key == first.auth_encryption_key
    assert not auth.embedded_settings(st).auth_encryption_key  # noauth: nothing made


def _headers(project: str = PROJECT, roles: str = "member,reader", **extra: str) -> dict:
    return {"X-Identity-Status": "Confirmed", "X-User-Id": "u" * 32, "X-User-Name": "alice",
            "X-Project-Id": project, "X-Roles": roles, "X-Auth-Token": "tok",
            "X-User-Domain-Id": "default", "X-Project-Domain-Id": "default", **extra}


@pytest.fixture()
def ks(tmp_path):
    policy.reset()
    return config.load({}, data_dir=str(tmp_path), auth_strategy="keystone")


def test_the_context_is_the_tokens(ks):
    ctx = auth.context_from_headers(_headers(), PROJECT, ks, "req-1")
    assert (ctx.tenant_id, ctx.project_id, ctx.user_id, ctx.username) == \
        (PROJECT, PROJECT, "u" * 32, "alice")
    assert ctx.roles == ("member", "reader") and not ctx.is_admin
    assert ctx.auth_token == "tok" and ctx.user_domain_id == "default"


@pytest.mark.parametrize("headers", [
    {}, {"X-Identity-Status": "Invalid", "X-Auth-Token": "bad"},
    {"X-Identity-Status": "Invalid", "X-User-Id": "spoofed", "X-Roles": "admin"},
])
def test_no_confirmed_token_is_401(ks, headers):
    with pytest.raises(keystone.NotAuthenticated) as info:
        auth.context_from_headers(headers, PROJECT, ks, "req-1")
    assert info.value.http_status == 401 and info.value.heat_type == "HTTPUnauthorized"


def test_another_projects_url_is_403_except_for_admins(ks):
    with pytest.raises(policy.AccessDenied) as info:
        auth.context_from_headers(_headers(), OTHER, ks, "req-1")
    assert info.value.http_status == 403
    ctx = auth.context_from_headers(_headers(roles="admin,member,reader"), OTHER, ks, "req-1")
    assert ctx.is_admin and ctx.tenant_id == OTHER and ctx.project_id == PROJECT
    with pytest.raises(policy.AccessDenied):  # admin role outside the admin project
        auth.context_from_headers(_headers(roles="admin", **{"X-Is-Admin-Project": "False"}),
                                  OTHER, ks, "req-1")
