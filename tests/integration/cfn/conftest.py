"""Fixtures of the CFN API unit tests: the app on Flask's test client (inline engine, SQLite)
and ``call``, which sends one query request signed as botocore signs it (Signature V4)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode
from xml.etree import ElementTree as ET

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

HOST = "localhost"


class Answer:
    """A response: ``status``, ``root`` (the parsed XML) and ``find(path)`` / ``text(path)``."""

    def __init__(self, resp: Any) -> None:
        self.status = resp.status_code
        self.headers = resp.headers
        self.data = resp.data
        self.root = ET.fromstring(resp.data)

    def find(self, path: str) -> Any:
        return self.root.find(path)

    def findall(self, path: str) -> list[Any]:
        return self.root.findall(path)

    def text(self, path: str) -> str | None:
        node = self.root.find(path)
        return None if node is None else node.text

    @property
    def code(self) -> str | None:
        return self.text("Error/Code")


def sign(params: dict[str, str], key: str = "AKIDEXAMPLE", secret: str = "secret"
         ) -> tuple[bytes, dict[str, str]]:
    """``(body, headers)`` of a form POST to ``/v1/`` signed by botocore's SigV4Auth."""
    body = urlencode(params).encode()
    req = AWSRequest(method="POST", url=f"http://{HOST}/v1/", data=body,
                     headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
    SigV4Auth(Credentials(key, secret), "cloudformation", "RegionOne").add_auth(req)
    return body, dict(req.headers.items())


@pytest.fixture()
def cfn(db):  # type: ignore[no-untyped-def]
    from app.cfn import create_app
    flask_app = create_app(db)
    flask_app.config["TESTING"] = True
    return flask_app.test_client()


@pytest.fixture()
def call(cfn: Any) -> Callable[..., Answer]:
    def send(action: str | None, signed: bool = True, **params: str) -> Answer:
        full = {"Version": "2010-05-15", **params}
        if action is not None:
            full["Action"] = action
        if signed:
            body, headers = sign(full)
        else:
            body, headers = urlencode(full).encode(), {
                "Content-Type": "application/x-www-form-urlencoded"}
        return Answer(cfn.post("/v1/", data=body, headers=headers))
    return send



@pytest.fixture()
def boto(db):  # type: ignore[no-untyped-def]
    """boto3's cloudformation client against the CFN app served on a loopback port (one
    request at a time; inline engine, SQLite)."""
    from tests.fixtures.cfn import served
    with served(db) as cf:
        yield cf
