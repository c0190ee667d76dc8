"""The Barbican types through the API with real workers: one stack of secrets, orders (a key, an
RSA pair, a certificate for that pair) and the three kinds of container, created, updated (what
changed is replaced, as nothing of Barbican's is updatable) and deleted; the keys an order made
outlive it, as in Barbican. Then the corpus's order template, and bad input."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

pytestmark = pytest.mark.usefixtures("api_no_leaks")

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  payload: {type: string, default: s3cr3t}
  key_bits: {type: number, default: 256}
resources:
  secret:
    type: OS::Barbican::Secret
    properties: {name: plain, payload: {get_param: payload}, payload_content_type: text/plain}
  binary:
    type: OS::Barbican::Secret
    properties: {payload: YWJj, payload_content_type: application/octet-stream,
                 payload_content_encoding: base64, secret_type: symmetric}
  generic:
    type: OS::Barbican::GenericContainer
    properties:
      name: both
      secrets: [{name: a, ref: {get_resource: secret}}, {name: b, ref: {get_resource: binary}}]
  key:
    type: OS::Barbican::Order
    properties: {type: key, name: k, algorithm: aes, bit_length: {get_param: key_bits}, mode: cbc}
  pair:
    type: OS::Barbican::Order
    properties: {type: asymmetric, algorithm: rsa, bit_length: 1024}
  private:
    type: OS::Barbican::Secret
    properties: {payload: {get_attr: [pair, private_key]}, payload_content_type: text/plain,
                 secret_type: private}
  public:
    type: OS::Barbican::Secret
    properties: {payload: {get_attr: [pair, public_key]}, payload_content_type: text/plain,
                 secret_type: public}
  rsa:
    type: OS::Barbican::RSAContainer
    properties: {private_key_ref: {get_resource: private}, public_key_ref: {get_resource: public}}
  cert:
    type: OS::Barbican::Order
    properties: {type: certificate, request_type: stored-key, subject_dn: CN=www.example.com,
                 source_container_ref: {get_resource: rsa}}
  certificate:
    type: OS::Barbican::Secret
    properties: {payload: {get_attr: [cert, certificate]}, payload_content_type: text/plain,
                 secret_type: certificate}
  bundle:
    type: OS::Barbican::CertificateContainer
    properties: {certificate_ref: {get_resource: certificate},
                 private_key_ref: {get_resource: private}}
outputs:
  secret_ref: {value: {get_resource: secret}}
  payload: {value: {get_attr: [secret, decrypted_payload]}}
  status: {value: {get_attr: [secret, status]}}
  refs: {value: {get_attr: [generic, secret_refs]}}
  consumers: {value: {get_attr: [generic, consumers]}}
  key_ref: {value: {get_attr: [key, secret_ref]}}
  pair_container: {value: {get_attr: [pair, container_ref]}}
  cert_container: {value: {get_attr: [cert, container_ref]}}
  certificate: {value: {get_attr: [cert, certificate]}}
  private_key: {value: {get_attr: [pair, private_key]}}
  bundle_refs: {value: {get_attr: [bundle, secret_refs]}}
"""


def _id(ref: str) -> str:
    return ref.rstrip("/").rsplit("/", 1)[1]


def _forget_generated(api: Any, outputs: dict[str, Any]) -> None:
    """Delete what the orders made (Barbican keeps it after the order is deleted)."""
    km = api.cloud("key-manager")
    if outputs.get("key_ref"):
        assert km.get(f"/v1/secrets/{_id(outputs['key_ref'])}").status_code == 200
        km.delete(f"/v1/secrets/{_id(outputs['key_ref'])}")
    for ref in (outputs.get("pair_container"), outputs.get("cert_container")):
        if not ref:
            continue
        container = km.get(f"/v1/containers/{_id(ref)}").json()
        km.delete(f"/v1/containers/{_id(ref)}")
        for s in container["secret_refs"]:
            km.delete(f"/v1/secrets/{_id(s['secret_ref'])}", raise_exc=False)


def _outputs(stack: dict[str, Any]) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in stack.get("outputs") or []}


def test_barbican_types_are_created_updated_and_deleted(api: Any) -> None:
    stack = api.create(TEMPLATE)
    out = _outputs(stack)
    km = api.cloud("key-manager")
    assert out["payload"] == "s3cr3t" and out["status"] == "ACTIVE"
    assert "/key-manager/v1/secrets/" in out["secret_ref"]
    assert out["refs"]["a"] == out["secret_ref"] and set(out["refs"]) == {"a", "b"}
    assert out["consumers"] == []
    key = km.get(f"/v1/secrets/{_id(out['key_ref'])}").json()
    assert (key["secret_type"], key["algorithm"], key["bit_length"]) == ("symmetric", "aes", 256)
    private = serialization.load_pem_private_key(out["private_key"].encode(), None)
    cert = x509.load_pem_x509_certificate(out["certificate"].encode())
    assert cert.subject.rfc4514_string() == "CN=www.example.com"
    assert cert.public_key().public_numbers() == private.public_key().public_numbers()
    assert set(out["bundle_refs"]) == {"certificate", "private_key"}
    resources = api.resources(stack)
    assert resources["secret"]["physical_resource_id"] == out["secret_ref"]

    generated = [out]
    stack = api.update(stack, TEMPLATE, {"payload": "n3w", "key_bits": 128})
    new = _outputs(stack)
    generated.append(new)
    assert new["payload"] == "n3w" and new["secret_ref"] != out["secret_ref"]   # replaced
    assert new["refs"]["a"] == new["secret_ref"]            # the container follows it (replaced)
    assert new["key_ref"] != out["key_ref"]
    assert km.get(f"/v1/secrets/{_id(new['key_ref'])}").json()["bit_length"] == 128
    assert new["cert_container"] == out["cert_container"]   # untouched
    assert km.get(f"/v1/secrets/{_id(out['secret_ref'])}", raise_exc=False).status_code == 404
    after = api.resources(stack)
    assert after["cert"]["physical_resource_id"] == resources["cert"]["physical_resource_id"]
    assert after["generic"]["physical_resource_id"] != resources["generic"]["physical_resource_id"]
    api.delete(stack)
    assert km.get(f"/v1/orders/{_id(after['cert']['physical_resource_id'])}",
                  raise_exc=False).status_code == 404
    _forget_generated(api, out)
    _forget_generated(api, {"key_ref": new["key_ref"]})


def test_the_corpus_order_template_is_created_and_deleted(api: Any, shared: Path) -> None:
    template = (shared / "corpus/heat-templates/hot/barbican/order.yaml").read_text()
    # its default expiration (2017) is past: Heat's expiration constraint refuses it
    stack = api.create(template, {"expiration": "2099-12-28T19:14:44.180394"})
    out = _outputs(stack)
    assert out["order_status"] == "ACTIVE" and "/v1/orders/" in out["order_ref"]
    api.delete(stack)
    _forget_generated(api, {"key_ref": out["secret_ref"]})


def test_bad_input_is_refused_as_heat_refuses_it(api: Any) -> None:
    from heatclient import exc
    bad_ref = """
heat_template_version: 2018-08-31
resources:
  c:
    type: OS::Barbican::GenericContainer
    properties: {secrets: [{name: a, ref: http://127.0.0.1:1/key-manager/v1/secrets/nope}]}
"""
    with pytest.raises(exc.HTTPBadRequest) as err:
        api.heat.stacks.create(stack_name="t-bad-secret", template=bad_ref)
    assert ("Error validating value 'http://127.0.0.1:1/key-manager/v1/secrets/nope': The Secret "
            "(http://127.0.0.1:1/key-manager/v1/secrets/nope) could not be found.") in str(err.value)
    no_bits = """
heat_template_version: 2018-08-31
resources:
  o: {type: OS::Barbican::Order, properties: {type: key, algorithm: aes}}
"""
    with pytest.raises(exc.HTTPBadRequest) as err:
        api.heat.stacks.create(stack_name="t-bad-order", template=no_bits)
    assert "Properties algorithm and bit_length are required for key type of order." in str(err.value)
    # Barbican refuses an RSA container without its public key: the stack fails, nothing is left
    half = """
heat_template_version: 2018-08-31
resources:
  s: {type: OS::Barbican::Secret, properties: {payload: x}}
  rsa: {type: OS::Barbican::RSAContainer, properties: {private_key_ref: {get_resource: s}}}
"""
    stack = api.create(half, expect="CREATE_FAILED")
    reason = api.resources(stack)["rsa"]["resource_status_reason"]
    assert reason.startswith("HTTPClientError: resources.rsa: Bad Request: Provided object does "
                             "not match schema 'Container'"), reason
    api.delete(stack)
