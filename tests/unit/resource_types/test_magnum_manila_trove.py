"""Magnum, Manila and Trove plugins without a cloud: Heat's HIDDEN Bay and BayModel (found,
not listed; Bay a placeholder, BayModel a cluster template that drops ssh_authorized_key) and
the validations Heat makes before asking a cloud."""
from __future__ import annotations

import pytest

from app import errors
from app.resource_types import registry
from app.resource_types.magnum import Bay, BayModel, ClusterTemplate
from app.resource_types.manila import ShareNetwork
from app.resource_types.trove import Cluster, Instance


def test_bay_and_baymodel_are_hidden_but_usable() -> None:
    assert "OS::Magnum::Bay" not in registry.types() and "OS::Magnum::BayModel" not in registry.types()
    assert registry.schema("OS::Magnum::Bay") is None
    assert registry.get("OS::Magnum::Bay") is Bay and registry.get("OS::Magnum::BayModel") is BayModel
    assert Bay.support_status["status"] == "HIDDEN"
    assert Bay.support_status["message"] == "Please use OS::Magnum::Cluster instead."
    assert BayModel.support_status["message"] == "Please use OS::Magnum::ClusterTemplate instead."
    bay = Bay("bay", {"baymodel": "x", "anything": 1})
    bay.handle_create()
    assert bay.resource_id and bay.resolve_attribute("api_address") is None
    model = BayModel("bm", {"coe": "swarm", "image": "i", "external_network": "n", "ssh_authorized_key": "k"})
    assert "ssh_authorized_key" not in model.properties


def test_a_volume_driver_the_coe_does_not_support_is_refused() -> None:
    ct = ClusterTemplate("ct", {"coe": "kubernetes", "volume_driver": "rexray"})
    with pytest.raises(errors.ValidationError) as err:
        ct.validate()
    assert str(err.value.message) == ("Volume driver type rexray is not supported by COE:kubernetes, "
                                      "expecting a ['cinder'] volume driver.")


def test_a_share_network_needs_a_subnet_with_its_network() -> None:
    with pytest.raises(errors.ValidationError) as err:
        ShareNetwork("sn", {"neutron_network": "n"}).validate()
    assert err.value.message == "neutron_network cannot be specified without neutron_subnet."


def test_trove_checks_users_databases_and_networks_as_heat() -> None:
    with pytest.raises(errors.ValidationError) as err:
        Instance("db", {"flavor": "f", "size": 1, "users": [{"name": "u", "password": "p",
                                                              "databases": ["a"]}]}).validate()
    assert err.value.message == "Databases property is required if users property is provided for resource db."
    with pytest.raises(errors.ValidationError) as err:
        Instance("db", {"flavor": "f", "size": 1, "databases": [{"name": "b"}],
                        "users": [{"name": "u", "password": "p", "databases": ["a"]}]}).validate()
    assert err.value.message == "Database ['a'] specified for user does not exist in databases for resource db."
    with pytest.raises(errors.ValidationError) as err:
        Instance("db", {"flavor": "f", "size": 1, "networks": [{"fixed_ip": "10.0.0.2"}]}).validate()
    assert err.value.message == "Either network or port must be provided."
    with pytest.raises(errors.ValidationError):
        Cluster("c", {"instances": [{"flavor": "f", "volume_size": 1,
                                     "networks": [{"network": "n", "port": "p"}]}]}).validate()
