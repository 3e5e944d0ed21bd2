"""Neutron's resource types: networks, subnets, ports, routers, floating IPs, security groups."""
