"""Server user data as Heat builds it for each ``user_data_format`` (pure, stdlib only).

* ``RAW`` -- the text as given.
* ``SOFTWARE_CONFIG`` -- the text as given (Heat first swaps a software config id for its
  config; Stoker has no software config store yet, so a literal config is passed through).
* ``HEAT_CFNTOOLS`` -- a MIME multipart message for cloud-init, with the parts heat-cfntools
  needs: ``cloud-config``, the user data as ``cfn-userdata`` (``text/x-cfninitdata``), a
  ``loguserdata.py``-style shell part that runs it when it is a script, the resource metadata as
  ``cfn-init-data``, and the metadata server URL as ``cfn-metadata-server`` when one is known.
  Heat ships its own helper scripts (part handler, boothook); these are not reproduced.

The result is text; Nova wants it base64-encoded (:func:`encode`).
"""
from __future__ import annotations

import base64
import json
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


def build(user_data: str, fmt: str, *, metadata: Any = None, metadata_url: str | None = None,
          instance_user: str | None = None) -> str:
    """The user data text for ``fmt`` (``RAW``, ``SOFTWARE_CONFIG``, ``HEAT_CFNTOOLS``)."""
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


def encode(text: str) -> str:
    """Base64 of the UTF-8 text (what Nova's ``user_data`` field takes)."""
    return base64.b64encode(text.encode("utf-8")).decode("ascii")
