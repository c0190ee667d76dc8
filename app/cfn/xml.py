"""AWS query-API XML bodies, as heat-api-cfn's ``XMLResponseSerializer``
(``heat/common/serializers.py``) writes them, read back by botocore's query parser.

Shape rules (Heat's): a mapping becomes one element per key, in order; a list becomes ``<member>``
children; a scalar becomes the element's text; ``TemplateBody`` and ``Metadata`` hold JSON text
(AWS defines them as JSON inside XML). The root has no namespace, as Heat's.

Where Heat's output cannot be read by the AWS clients it serves, AWS's rule is followed instead,
because those clients are the API's users: booleans are ``true`` / ``false`` (botocore reads only
``true`` as true; Heat's ``True`` would read as false), ``None`` leaves the element out (botocore
cannot parse Heat's ``None`` as an integer or a time).
"""
from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree as ET

JSON_ONLY_KEYS = ("TemplateBody", "Metadata")


def _fill(element: ET.Element, obj: Any) -> None:
    if isinstance(obj, list):
        for item in obj:
            _fill(ET.SubElement(element, "member"), item)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if value is None:
                continue
            sub = ET.SubElement(element, key)
            if key in JSON_ONLY_KEYS:
                if value:
                    sub.text = value if isinstance(value, str) else json.dumps(value)
            else:
                _fill(sub, value)
    elif isinstance(obj, bool):
        element.text = "true" if obj else "false"
    else:
        element.text = str(obj)


def to_xml(data: dict[str, Any]) -> bytes:
    """``{"RootName": body}`` as XML bytes (UTF-8, with the XML declaration).

    :raises ValueError: ``data`` does not have exactly one key.
    """
    if len(data) != 1:
        raise ValueError("an XML document has exactly one root element")
    (root_name, body), = data.items()
    root = ET.Element(root_name)
    _fill(root, body)
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))


def response(action: str, result: Any, request_id: str | None = None) -> dict[str, Any]:
    """Heat's ``format_response``: ``{"<Action>Response": {"<Action>Result": result}}``, plus
    AWS's ``ResponseMetadata/RequestId`` when a request id is given."""
    body: dict[str, Any] = {f"{action}Result": result}
    if request_id:
        body["ResponseMetadata"] = {"RequestId": request_id}
    return {f"{action}Response": body}
