"""keystonemiddleware is configured so that a normal start is quiet: the service user's password
plugin options reach keystoneauth through a private oslo.config object, not auth_token's paste
conf (which warns 'The option "auth_url" is not known to keystonemiddleware' for each)."""
from __future__ import annotations

import logging

from app import config
from app.auth import keystone


def test_wrapping_logs_no_warning_and_the_plugin_has_the_service_user(caplog):
    settings = config.get().replace(auth_strategy="keystone",
                                    keystone_url="http://127.0.0.1:9/identity/v3",
                                    service_username="svc", service_password="pw",
                                    service_project="svcproj")
    with caplog.at_level(logging.DEBUG):
        wrapped = keystone.wrap(lambda env, start: [], settings)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == []
    plugin = wrapped._auth  # auth_token's service-user plugin, loaded at start
    assert plugin.auth_url == "http://127.0.0.1:9/identity/v3"
    assert plugin._username == "svc" and plugin._password == "pw"
    assert plugin._project_name == "svcproj"

