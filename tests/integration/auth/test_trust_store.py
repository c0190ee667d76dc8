"""Where a stack's cloud calls get their credential: keystone mode hands the root stack's trust
to every nested stack (Heat: nested stacks use the root's trust); noauth and a stack without a
trust keep the configured credential."""
from __future__ import annotations

from cryptography.fernet import Fernet

from app import auth, config
from app.auth import crypto, trusts
from app.models import RawTemplate, Stack, UserCreds, session
from app.templates import StackIdentity


def _stacks(key: str) -> None:
    with session() as s:
        raw = RawTemplate(template={}, files={}, environment={})
        s.add(raw)
        s.flush()
        s.add(Stack(id="root", name="root", tenant="p", raw_template_id=raw.id))
        s.add(Stack(id="child", name="child", tenant="p", raw_template_id=raw.id,
                    parent_id="root", nested_depth=1))
        s.add(Stack(id="grandchild", name="gc", tenant="p", raw_template_id=raw.id,
                    parent_id="child", nested_depth=2))
        s.add(Stack(id="plain", name="plain", tenant="p", raw_template_id=raw.id))
        s.add(UserCreds(stack_id="root", trustor_user_id="u", tenant="p",
                        trust_id=crypto.encrypt(key, "t" * 32)))


def test_nested_stacks_use_the_roots_trust(db):
    key = Fernet.generate_key().decode()
    st = db.replace(auth_strategy="keystone", auth_encryption_key=key)
    config.set_current(st)
    trusts.forget()
    _stacks(key)
    for stack_id in ("root", "child", "grandchild"):
        assert trusts.trust_for_stack(stack_id, st) == "t" * 32
        clients = auth.clients_for(StackIdentity(stack_name="x", stack_id=stack_id,
                                                 project_id="p"), st)
        assert clients.trust_id == "t" * 32
    assert trusts.trust_for_stack("plain", st) is None
    assert auth.clients_for(StackIdentity(stack_name="plain", stack_id="plain", project_id="p"),
                            st).trust_id is None
    trusts.forget()


def test_a_nested_stack_validated_before_its_create_uses_its_parents_trust(db):
    """A group's or nested stack's child is validated (its cloud-backed constraints looked
    up) before its row exists: the lookups run with the parent's trust (``trust_of``), and
    the unknown id is not remembered as trust-less, so the child's own work later finds its
    root's trust in the same process."""
    key = Fernet.generate_key().decode()
    st = db.replace(auth_strategy="keystone", auth_encryption_key=key)
    config.set_current(st)
    trusts.forget()
    _stacks(key)
    unborn = StackIdentity(stack_name="new", stack_id="new-child", project_id="p")
    assert auth.clients_for(unborn, st, validation=True, trust_of="child").trust_id == "t" * 32
    assert trusts.trust_for_stack("new-child", st) is None
    with session() as s:
        raw_id = s.get(Stack, "root").raw_template_id
        s.add(Stack(id="new-child", name="new", tenant="p", raw_template_id=raw_id,
                    parent_id="child", nested_depth=2))
    assert trusts.trust_for_stack("new-child", st) == "t" * 32
    assert auth.clients_for(unborn, st).trust_id == "t" * 32
    trusts.forget()


def test_noauth_never_looks_for_a_trust(db):
    key = Fernet.generate_key().decode()
    _stacks(key)
    clients = auth.clients_for(StackIdentity(stack_name="root", stack_id="root", project_id="p"),
                               db)
    assert clients.trust_id is None and clients.project() == "p"


def test_a_failed_trust_delete_keeps_the_row_and_names_the_reason(db, monkeypatch):
    from app import errors
    from app.clients import trusts as ks_trusts
    key = Fernet.generate_key().decode()
    st = db.replace(auth_strategy="keystone", auth_encryption_key=key)
    _stacks(key)

    def down(_settings, _trust_id):
        raise errors.CloudError("Unable to reach the cloud: refused", transient=True)

    monkeypatch.setattr(ks_trusts, "delete_trust", down)
    with session() as s:
        assert auth.stack_deleted(s, "root", st) == \
            "Error deleting trust: Unable to reach the cloud: refused"
    with session() as s:
        assert s.get(UserCreds, "root") is not None
    monkeypatch.setattr(ks_trusts, "delete_trust", lambda _s, _t: False)  # already gone
    with session() as s:
        assert auth.stack_deleted(s, "root", st) is None
    with session() as s:
        assert s.get(UserCreds, "root") is None
