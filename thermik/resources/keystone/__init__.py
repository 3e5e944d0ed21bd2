"""Heat's Keystone resource types (``OS::Keystone::*``): projects, users, groups, roles,
domains, regions, services, endpoints and role assignments. Keystone lets only administrators
make most of them."""
