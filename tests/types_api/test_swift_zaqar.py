"""Swift and Zaqar types through the API with real workers: a container, an S3 bucket, a
SwiftSignalHandle and the SwiftSignal it completes (signalled by a PUT to its TempURL, as an
instance's curl would), a queue, a subscription and a signed queue URL are created, updated (in
place and by replacement) and deleted; a signal that never comes times out with Heat's message,
and a container that still holds objects is not deleted without PurgeOnDelete."""
from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qsl

import pytest
import requests

pytestmark = pytest.mark.usefixtures("api_no_leaks")

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  web_index: {type: string}
  queue_meta: {type: json}
  subscriber: {type: string}
  methods: {type: comma_delimited_list}
resources:
  container:
    type: OS::Swift::Container
    properties:
      PurgeOnDelete: true
      X-Container-Read: ".r:*"
      X-Container-Meta: {web-index: {get_param: web_index}}
  bucket:
    type: AWS::S3::Bucket
    properties:
      AccessControl: PublicRead
      WebsiteConfiguration: {IndexDocument: index.html, ErrorDocument: error.html}
      Tags: [{Key: team, Value: ops}]
  handle:
    type: OS::Heat::SwiftSignalHandle
  signal:
    type: OS::Heat::SwiftSignal
    properties: {handle: {get_resource: handle}, timeout: 60, count: 1}
  queue:
    type: OS::Zaqar::Queue
    properties: {metadata: {get_param: queue_meta}}
  subscription:
    type: OS::Zaqar::Subscription
    properties:
      queue_name: {get_resource: queue}
      subscriber: {get_param: subscriber}
      ttl: 3600
      options: {from: heat}
  signed:
    type: OS::Zaqar::SignedQueueURL
    properties:
      queue: {get_resource: queue}
      methods: {get_param: methods}
      paths: [messages]
      ttl: 600
outputs:
  signal_data: {value: {get_attr: [signal, data]}}
  bucket_domain: {value: {get_attr: [bucket, DomainName]}}
  bucket_url: {value: {get_attr: [bucket, WebsiteURL]}}
  container_url: {value: {get_attr: [container, WebsiteURL]}}
  object_count: {value: {get_attr: [container, ObjectCount]}}
  curl: {value: {get_attr: [handle, curl_cli]}}
  token: {value: {get_attr: [handle, token]}}
  href: {value: {get_attr: [queue, href]}}
  query_str: {value: {get_attr: [signed, query_str]}}
  signed_methods: {value: {get_attr: [signed, methods]}}
"""

PARAMS = {"web_index": "index.html", "queue_meta": {"color": "blue"},
          "subscriber": "mailto:ops@example.com", "methods": "GET"}


def _wait_resource(api: Any, stack_id: str, name: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            res = api.heat.resources.get(stack_id, name)
            if res.resource_status == "CREATE_COMPLETE":
                return res
        except Exception:  # not listed yet
            pass
        assert time.monotonic() < deadline, f"{name} never completed"
        time.sleep(0.25)


def test_swift_and_zaqar_types_live_through_create_update_delete(api: Any) -> None:
    created = api.heat.stacks.create(stack_name="t-swift-zaqar", template=TEMPLATE,
                                     parameters=PARAMS)
    stack_id = created["stack"]["id"]
    handle = _wait_resource(api, stack_id, "handle")
    endpoint = handle.attributes["endpoint"]
    assert "temp_url_sig=" in endpoint and "/v1/AUTH_" in endpoint
    # the instance's signal: a PUT with no token to the TempURL
    put = requests.put(endpoint, data=json.dumps({"status": "SUCCESS", "id": "web",
                                                  "data": "ready"}), timeout=10)
    assert put.status_code == 201
    stack = api._settled(stack_id, "CREATE_COMPLETE", 60)
    outputs = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
    assert json.loads(outputs["signal_data"]) == {"web": "ready"}
    assert outputs["curl"] == f"curl -i -X PUT '{endpoint}'"
    assert outputs["token"] == ""
    res = api.resources(stack)
    container, bucket = res["container"]["physical_resource_id"], \
        res["bucket"]["physical_resource_id"]
    assert outputs["bucket_domain"] == "127.0.0.1"
    assert outputs["bucket_url"].endswith(f"/v1/AUTH_{outputs['bucket_url'].split('AUTH_')[1]}")
    assert outputs["bucket_url"].rsplit("/", 1)[1] == bucket
    assert outputs["container_url"].rsplit("/", 1)[1] == container
    assert outputs["object_count"] == "0"

    swift = api.cloud("object-store")
    head = swift.head(f"/{bucket}").headers
    assert head["X-Container-Read"] == ".r:*"
    assert head["X-Container-Meta-Web-Index"] == "index.html"
    assert head["X-Container-Meta-S3-Tag-Team"] == "ops"
    assert swift.head(f"/{container}").headers["X-Container-Meta-Web-Index"] == "index.html"
    swift.put(f"/{container}/page.html", data=b"<html/>")   # PurgeOnDelete will remove it

    zaqar = api.cloud("messaging")
    queue = res["queue"]["physical_resource_id"]
    assert outputs["href"] == f"{api.sandbox_url}/messaging/v2/queues/{queue}"   # Heat's, versioned
    cid = {"Client-ID": "f5a9c2a4-5cbb-4a8b-9f3e-2d5b1e8a7c10"}
    assert zaqar.get(f"/v2/queues/{queue}", headers=cid).json() == {"color": "blue"}
    sub_id = res["subscription"]["physical_resource_id"]
    sub = zaqar.get(f"/v2/queues/{queue}/subscriptions/{sub_id}", headers=cid).json()
    assert (sub["subscriber"], sub["ttl"], sub["options"]) == \
        ("mailto:ops@example.com", 3600, {"from": "heat"})
    # Heat's urlencode: "/" and ":" escaped
    assert f"queue_name={queue}" in outputs["query_str"] and outputs["signed_methods"] == ["GET"]
    assert f"paths=%2Fv2%2Fqueues%2F{queue}%2Fmessages" in outputs["query_str"]
    # the signed URL reads the queue's messages without a token
    query = dict(parse_qsl(outputs["query_str"]))
    signed_get = requests.get(
        f"{api.sandbox_url}/messaging/v2/queues/{queue}/messages",
        headers={"URL-Signature": query["signature"], "URL-Expires": query["expires"],
                 "URL-Methods": query["methods"], "URL-Paths": query["paths"],
                 "X-Project-ID": query["project_id"], **cid}, timeout=10)
    assert signed_get.status_code == 200
    signed_id = res["signed"]["physical_resource_id"]

    stack = api.update(stack, TEMPLATE, {**PARAMS, "web_index": "home.html",
                                         "queue_meta": {"color": "green"},
                                         "subscriber": "https://example.com/hook",
                                         "methods": "GET,POST"})
    after = api.resources(stack)
    # in place: the queue's metadata, the subscription
    assert after["queue"]["physical_resource_id"] == queue
    assert zaqar.get(f"/v2/queues/{queue}", headers=cid).json() == {"color": "green"}
    assert after["subscription"]["physical_resource_id"] == sub_id
    assert zaqar.get(f"/v2/queues/{queue}/subscriptions/{sub_id}", headers=cid).json()[
        "subscriber"] == "https://example.com/hook"
    # replaced: the container (its metadata is not update_allowed), the signed URL
    assert after["container"]["physical_resource_id"] != container
    assert swift.head(f"/{container}", raise_exc=False).status_code == 404
    assert after["signed"]["physical_resource_id"] != signed_id
    assert api.output(stack, "signed_methods") == ["GET", "POST"]
    api.delete(stack)
    assert zaqar.get(f"/v2/queues/{queue}/subscriptions/{sub_id}", headers=cid,
                     raise_exc=False).status_code == 404


BAD = """
heat_template_version: 2018-08-31
resources:
  container:
    type: OS::Swift::Container
  handle:
    type: OS::Heat::SwiftSignalHandle
  signal:
    type: OS::Heat::SwiftSignal
    properties: {handle: {get_resource: handle}, timeout: 2}
"""


def test_a_signal_times_out_and_a_full_container_is_kept(api: Any) -> None:
    stack = api.create(BAD, expect="CREATE_FAILED")
    assert api.failures(stack)["signal"] == \
        "SwiftSignalTimeout: resources.signal: 0 of 1 received"
    container = api.resources(stack)["container"]["physical_resource_id"]
    swift = api.cloud("object-store")
    swift.put(f"/{container}/left.txt", data=b"x")
    api.delete(stack, expect="DELETE_FAILED")
    assert api.failures(stack)["container"] == (
        f"ResourceActionNotSupported: resources.container: Deleting non-empty container "
        f"({container}) when PurgeOnDelete is False is not supported for resource.")
    swift.delete(f"/{container}/left.txt")
    api.delete(stack)
