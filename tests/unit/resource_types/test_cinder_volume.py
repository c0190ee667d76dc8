"""OS::Cinder::Volume's own checks (Heat's ``CinderVolume.validate`` /
``_validate_create_sources``), before any cloud call."""
from __future__ import annotations

import pytest

from app import errors
from app.resource_types.cinder import Volume

NEITHER = ('If neither "backup_id" nor "size" is provided, one and only one of "source_volid", '
           '"snapshot_id" must be specified, but currently specified options: ')
SIZED = ('If "size" is provided, only one of "image", "imageRef", "source_volid", "snapshot_id" '
         'can be specified, but currently specified options: ')


@pytest.mark.parametrize(("props", "options"), [
    ({}, "[]"),
    ({"image": "cirros"}, "['image']"),
    ({"snapshot_id": "s", "source_volid": "v"}, "['snapshot_id', 'source_volid']"),
    ({"snapshot_id": "s", "image": "cirros"}, "['snapshot_id', 'image']"),
])
def test_a_volume_with_no_size_needs_exactly_one_sized_source(props, options):
    with pytest.raises(errors.ValidationError) as info:
        Volume("v", props).validate()
    assert str(info.value) == NEITHER + options + "."
    assert info.value.heat_type == "StackValidationFailed"


def test_a_sized_volume_takes_at_most_one_source():
    with pytest.raises(errors.ValidationError) as info:
        Volume("v", {"size": 1, "image": "cirros", "source_volid": "v"}).validate()
    assert str(info.value) == SIZED + "['source_volid', 'image']."


@pytest.mark.parametrize("props", [
    {"size": 1}, {"size": 1, "image": "cirros"}, {"snapshot_id": "s"}, {"source_volid": "v"},
    {"backup_id": "b"}, {"backup_id": "b", "image": "cirros", "source_volid": "v"},
])
def test_what_heat_accepts_passes(props):
    volume = Volume("v", props)
    assert volume.validate() is None   # accepted: Heat's validate returns nothing
    assert volume.properties == props  # and leaves the properties as given
