"""The sandbox's bootstrap state (a fresh or reset sandbox): Keystone's Default domain, the admin
(``admin`` / ``sandbox`` in project ``admin``), a ``demo`` user and project, a ``stoker`` service
user, the usual roles, Heat's stack user domain ``heat`` with its admin ``heat_domain_admin``; Nova flavors; Glance images (cirros, ubuntu-24.04, ...); a Neutron external
network ``public`` and a ``private`` network for the demo project (as devstack); Keystone's region
``RegionOne`` and implied roles; Cinder volume types.
"""
from __future__ import annotations

from app.sandbox import ipam
from app.sandbox.http import iso
from app.sandbox.store import Obj, Store

ADMIN_PASSWORD = "sandbox"
STACK_USER_DOMAIN, STACK_DOMAIN_ADMIN = "heat", "heat_domain_admin"
ROLES = ("admin", "member", "reader", "service", "heat_stack_owner", "heat_stack_user",
         "load-balancer_member", "load-balancer_admin")
FLAVORS = (("1", "m1.tiny", 512, 1, 1), ("2", "m1.small", 2048, 1, 20), ("3", "m1.medium", 4096, 2, 40),
           ("4", "m1.large", 8192, 4, 80), ("5", "m1.xlarge", 16384, 8, 160), ("c1", "cirros256", 256, 1, 1),
           ("d1", "ds512M", 512, 1, 5), ("d2", "ds1G", 1024, 1, 10))
IMAGES = (("cirros", 21430272, 1, 64, "cirros"), ("cirros-0.6.2-x86_64-disk", 21430272, 1, 64, "cirros"),
          ("ubuntu-24.04", 596000000, 3, 512, "ubuntu"), ("debian-12", 420000000, 2, 512, "debian"),
          ("fedora-40", 450000000, 5, 1024, "fedora"))


def _add(st: Store, collection: str, obj: Obj) -> Obj:
    return st.add(collection, obj)


def seed(st: Store) -> dict[str, str]:
    """Populate an empty store; returns the ids of the bootstrap objects by name."""
    ids: dict[str, str] = {}
    now = st.clock()
    _add(st, "domains", {"id": "default", "name": "Default", "description": "The default domain",
                         "enabled": True, "tags": [], "options": {}})
    for name in ROLES:
        ids[f"role:{name}"] = _add(st, "roles", {"id": st.new_id(hex_only=True), "name": name, "description": "",
                                                 "domain_id": None, "options": {}})["id"]
    for name in ("admin", "service", "demo"):
        ids[f"project:{name}"] = _add(st, "projects", {
            "id": st.new_id(hex_only=True), "name": name, "description": f"Bootstrap project {name}",
            "enabled": True, "domain_id": "default", "parent_id": "default", "is_domain": False,
            "tags": [], "options": {}})["id"]
    users = (("admin", "admin", ("admin", "member", "reader")), ("demo", "demo", ("member", "reader")),
             ("stoker", "service", ("admin", "service")))
    for name, project, roles in users:
        uid = _add(st, "users", {"id": st.new_id(hex_only=True), "name": name, "description": "",
                                 "enabled": True, "domain_id": "default",
                                 "default_project_id": ids[f"project:{project}"], "email": None,
                                 "options": {}, "password_expires_at": None,
                                 "_password": ADMIN_PASSWORD})["id"]
        ids[f"user:{name}"] = uid
        for role in roles:
            _add(st, "assignments", {"id": st.new_id(hex_only=True), "user_id": uid,
                                     "project_id": ids[f"project:{project}"], "role_id": ids[f"role:{role}"]})
    _add(st, "assignments", {"id": st.new_id(hex_only=True), "user_id": ids["user:admin"], "domain_id": "default",
                             "role_id": ids["role:admin"]})
    # devstack's accounts: admin is an admin of the demo project too
    _add(st, "assignments", {"id": st.new_id(hex_only=True), "user_id": ids["user:admin"],
                             "project_id": ids["project:demo"], "role_id": ids["role:admin"]})
    _seed_stack_user_domain(st, ids)
    _seed_identity_catalog(st, ids)
    admin_project = ids["project:admin"]
    for fid, name, ram, vcpus, disk in FLAVORS:
        _add(st, "flavors", {"id": fid, "name": name, "ram": ram, "vcpus": vcpus, "disk": disk,
                             "OS-FLV-EXT-DATA:ephemeral": 0, "swap": 0, "rxtx_factor": 1.0,
                             "os-flavor-access:is_public": True, "OS-FLV-DISABLED:disabled": False,
                             "description": None, "extra_specs": {}})
    for name, size, min_disk, min_ram, distro in IMAGES:
        ids[f"image:{name}"] = _add(st, "images", {
            "id": st.new_id(), "name": name, "status": "active", "visibility": "public", "protected": False,
            "owner": admin_project, "container_format": "bare", "disk_format": "qcow2", "size": size,
            "virtual_size": size * 4, "min_disk": min_disk, "min_ram": min_ram, "checksum": None,
            "os_hash_algo": "sha512", "os_hash_value": None, "tags": [], "os_hidden": False,
            "os_distro": distro, "hw_architecture": "x86_64",
            "created_at": iso(now), "updated_at": iso(now), "_stored": True,
            # devstack's cirros, as Heat's gate boots it: no heat agent (no os-collect-config)
            **({"sandbox_config_agent": "none"} if name == "cirros-0.6.2-x86_64-disk" else {})})["id"]
    for name, description in (("__DEFAULT__", "Default Volume Type"), ("lvmdriver-1", "LVM backend")):
        ids[f"volume_type:{name}"] = _add(st, "volume_types", {
            "id": st.new_id(), "name": name, "description": description, "is_public": True,
            "os-volume-type-access:is_public": True, "extra_specs": {}, "qos_specs_id": None,
            "_default": name == "__DEFAULT__"})["id"]
    _seed_networks(st, ids, admin_project, ids["project:demo"])
    return ids


def _seed_stack_user_domain(st: Store, ids: dict[str, str]) -> None:
    """Heat's stack user domain ``heat`` and its admin ``heat_domain_admin`` (admin on the
    domain), as devstack configures Heat (Stoker's ``stack_user_domain_name`` /
    ``stack_domain_admin`` defaults)."""
    domain = _add(st, "domains", {"id": st.new_id(hex_only=True), "name": STACK_USER_DOMAIN,
                                  "description": "Contains users and projects created by heat",
                                  "enabled": True, "tags": [], "options": {}})["id"]
    ids[f"domain:{STACK_USER_DOMAIN}"] = domain
    uid = _add(st, "users", {"id": st.new_id(hex_only=True), "name": STACK_DOMAIN_ADMIN, "description": "",
                             "enabled": True, "domain_id": domain, "default_project_id": None,
                             "email": None, "options": {}, "password_expires_at": None,
                             "_password": ADMIN_PASSWORD})["id"]
    ids[f"user:{STACK_DOMAIN_ADMIN}"] = uid
    _add(st, "assignments", {"id": st.new_id(hex_only=True), "user_id": uid, "domain_id": domain,
                             "role_id": ids["role:admin"]})


def _seed_identity_catalog(st: Store, ids: dict[str, str]) -> None:
    """Keystone's bootstrap region ``RegionOne`` and its implied roles: ``admin`` implies
    ``member``, which implies ``reader`` (``keystone-manage bootstrap``)."""
    _add(st, "regions", {"id": "RegionOne", "description": "", "parent_region_id": None})
    for prior, implied in (("admin", "member"), ("member", "reader")):
        _add(st, "implied_roles", {"id": st.new_id(hex_only=True), "prior_role_id": ids[f"role:{prior}"],
                                   "implied_role_id": ids[f"role:{implied}"]})


def _network(st: Store, name: str, project: str, *, external: bool) -> Obj:
    stamp = iso(st.clock())
    return _add(st, "networks", {
        "id": st.new_id(), "name": name, "status": "ACTIVE", "admin_state_up": True, "shared": False,
        "router:external": external, "mtu": 1500 if external else 1450, "port_security_enabled": True,
        "provider:network_type": "flat" if external else "vxlan",
        "provider:physical_network": "public" if external else None,
        "provider:segmentation_id": None if external else st.next_number("vni"),
        "availability_zones": ["nova"], "availability_zone_hints": [], "ipv4_address_scope": None,
        "ipv6_address_scope": None, "qos_policy_id": None, "is_default": external, "l2_adjacency": True,
        "dns_domain": "", "description": "", "tags": [], "tenant_id": project, "project_id": project,
        "created_at": stamp, "updated_at": stamp, "revision_number": 1})


def _subnet(st: Store, net: Obj, name: str, cidr: str, project: str) -> Obj:
    parsed = ipam.parse_cidr(cidr)
    gateway = ipam.default_gateway(parsed)
    stamp = iso(st.clock())
    return _add(st, "subnets", {
        "id": st.new_id(), "name": name, "network_id": net["id"], "ip_version": 4, "cidr": cidr,
        "gateway_ip": gateway, "allocation_pools": ipam.default_pools(parsed, gateway), "enable_dhcp": True,
        "dns_nameservers": [], "host_routes": [], "ipv6_ra_mode": None, "ipv6_address_mode": None,
        "subnetpool_id": None, "service_types": [], "segment_id": None, "dns_publish_fixed_ip": False,
        "description": "", "tags": [], "tenant_id": project, "project_id": project,
        "created_at": stamp, "updated_at": stamp, "revision_number": 0})


def _seed_networks(st: Store, ids: dict[str, str], admin_project: str, demo_project: str) -> None:
    """As devstack lays them out: ``public`` (external, the admin project's) and ``private``
    with ``private-subnet``, the demo project's own and shared, so that a server of any project
    booted without a network (CloudFormation-era templates name none) has one, as on a cloud
    that shares its tenant network."""
    public = _network(st, "public", admin_project, external=True)
    ids["network:public"] = public["id"]
    ids["subnet:public-subnet"] = _subnet(st, public, "public-subnet", "172.24.4.0/24", admin_project)["id"]
    private = _network(st, "private", demo_project, external=False)
    private["shared"] = True   # every project's servers without a network of their own land on it
    ids["network:private"] = private["id"]
    ids["subnet:private-subnet"] = _subnet(st, private, "private-subnet", "10.0.0.0/26", demo_project)["id"]
