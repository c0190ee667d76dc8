"""Server user data as Heat builds it for each ``user_data_format`` (pure, stdlib only).

More in docs/code/resource_types.md (app.resource_types._userdata).
"""
from __future__ import annotations

import base64
import email
import json
import os
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import Any

_CLOUD_CONFIG = "#cloud-config\nuser: ec2-user\ndisable_root: false\n"
_RUN_USERDATA = """#!/bin/sh
# Runs the cfn-userdata part when it is a script (Heat's loguserdata.py does the same).
ud=/var/lib/cloud/data/cfn-userdata
[ -f "$ud" ] && head -c 2 "$ud" | grep -q '#!' && chmod +x "$ud" && "$ud" > /var/log/heat-provision.log 2>&1
exit 0
"""


_BOOTHOOK = """#!/bin/sh
# Early boot: make the directory the heat-config agents keep their state in.
mkdir -p /var/lib/heat-cfntools /var/lib/heat-config
"""
_PART_HANDLER = """#part-handler
# Writes each x-cfninitdata part to /var/lib/heat-cfntools/<filename> for the in-server agents.
import os


def list_types():
    return ["text/x-cfninitdata"]


def handle_part(data, ctype, filename, payload):
    if ctype in ("__begin__", "__end__"):
        return
    os.makedirs("/var/lib/heat-cfntools", exist_ok=True)
    with open(os.path.join("/var/lib/heat-cfntools", filename), "w") as f:
        f.write(payload)
"""


def build(user_data: str, fmt: str, *, metadata: Any = None, metadata_url: str | None = None,
          instance_user: str | None = None) -> str:
    """The user data text for ``fmt`` (``RAW``, ``SOFTWARE_CONFIG``, ``HEAT_CFNTOOLS``)."""
    if fmt == "SOFTWARE_CONFIG":
        return _software_config(user_data, metadata)
    if fmt != "HEAT_CFNTOOLS":
        return user_data or ""
    msg = MIMEMultipart()
    config = _CLOUD_CONFIG if not instance_user else _CLOUD_CONFIG.replace("ec2-user", instance_user)
    parts = [(config, "cloud-config", "cloud-config"),
             (_RUN_USERDATA, "loguserdata", "x-shellscript"),
             (user_data or "", "cfn-userdata", "x-cfninitdata"),
             (json.dumps(metadata or {}), "cfn-init-data", "x-cfninitdata")]
    if metadata_url:
        parts.append((metadata_url, "cfn-metadata-server", "x-cfninitdata"))
    for content, filename, subtype in parts:
        part = MIMEText(content, subtype, "utf-8")
        part.add_header("Content-Disposition", "attachment", filename=filename)
        msg.attach(part)
    return msg.as_string()


def _part(content: str, filename: str, subtype: str | None = None) -> MIMEText:
    """One attachment as Heat's ``make_subpart``: subtype from the filename when not given,
    us-ascii unless the text needs utf-8."""
    subtype = os.path.splitext(filename)[0] if subtype is None else subtype
    try:
        content.encode("us-ascii")
        charset = "us-ascii"
    except UnicodeEncodeError:
        charset = "utf-8"
    msg = MIMEText(content, subtype, charset) if subtype else MIMEText(content, _charset=charset)
    msg.add_header("Content-Disposition", "attachment", filename=filename)
    return msg


def _software_config(user_data: str, metadata: Any) -> str:
    parts = [_part(_CLOUD_CONFIG, "cloud-config"),
             _part(_BOOTHOOK, "boothook.sh", "cloud-boothook"),
             _part(_PART_HANDLER, "part-handler.py")]
    parsed = email.message_from_string(user_data or "")
    if user_data and parsed.is_multipart():
        for sub in parsed.get_payload():
            parts.append(_part(str(sub.get_payload()), sub.get_filename() or "",
                               sub.get_content_subtype()))
    else:
        parts.append(_part(user_data or "", ""))
    if metadata:
        parts.append(_part(json.dumps(metadata), "cfn-init-data", "x-cfninitdata"))
    return MIMEMultipart(_subparts=parts).as_string()


def encode(text: str) -> str:
    """Base64 of the UTF-8 text (what Nova's ``user_data`` field takes)."""
    return base64.b64encode(text.encode("utf-8")).decode("ascii")
