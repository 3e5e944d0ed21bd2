"""Which cloud service a resource type needs, as Heat names it (its client and service types).

Heat refuses a template whose resource type needs a service the caller's Keystone catalog does
not list (``HEAT-E99001``, ``ResourceTypeUnavailable``), and its template validate lets a
client ignore exactly that error (``ignore_errors=99001``). The namespace of a type decides its
service, as Heat's ``default_client_name`` does for every plugin of one namespace; the few
types whose namespace says nothing of their service (``OS::Heat::SwiftSignal``) are listed.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class ServiceNeed:
    """A service a resource type needs: Heat's client name (``neutron``) and the catalog
    service types any one of which offers it (``network``)."""

    client: str
    service_types: tuple[str, ...]

    def reason(self) -> str:
        """Heat's reason when no endpoint of the service is in the catalog."""
        return f"{self.client} {self.service_types[-1]} endpoint is not in service catalog."


def _need(client: str, *service_types: str) -> ServiceNeed:
    return ServiceNeed(client, service_types)


#: By the namespace of the type (``OS::Nova::`` ...), Heat's client and service types.
_BY_NAMESPACE: dict[str, ServiceNeed] = {
    "OS::Nova::": _need("nova", "compute"),
    "OS::Neutron::": _need("neutron", "network"),
    "OS::Cinder::": _need("cinder", "block-storage", "volumev3"),
    "OS::Glance::": _need("glance", "image"),
    "OS::Keystone::": _need("keystone", "identity"),
    "OS::Swift::": _need("swift", "object-store"),
    "OS::Zaqar::": _need("zaqar", "messaging"),
    "OS::Octavia::": _need("octavia", "load-balancer"),
    "OS::Designate::": _need("designate", "dns"),
    "OS::Aodh::": _need("aodh", "alarming"),
    "OS::Barbican::": _need("barbican", "key-manager"),
    "OS::Manila::": _need("manila", "sharev2"),
    "OS::Trove::": _need("trove", "database"),
    "OS::Magnum::": _need("magnum", "container-infra"),
    "OS::Mistral::": _need("mistral", "workflowv2"),
    "OS::Senlin::": _need("senlin", "clustering"),
    "OS::Blazar::": _need("blazar", "reservation"),
    "OS::Ironic::": _need("ironic", "baremetal"),
    "OS::Zun::": _need("zun", "container"),
}

#: Types whose namespace does not name their service.
_BY_TYPE: dict[str, ServiceNeed] = {
    "OS::Heat::SwiftSignal": _BY_NAMESPACE["OS::Swift::"],
    "OS::Heat::SwiftSignalHandle": _BY_NAMESPACE["OS::Swift::"],
}


def service_of(type_name: str) -> ServiceNeed | None:
    """The service ``type_name`` needs; ``None`` for a type the engine itself implements
    (``OS::Heat::RandomString``) or one of a namespace Heat gives no client."""
    need = _BY_TYPE.get(type_name)
    if need is not None:
        return need
    namespace, _, _ = type_name.rpartition("::")
    return _BY_NAMESPACE.get(f"{namespace}::")
