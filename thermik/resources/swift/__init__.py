"""Heat's Swift resource type, ``OS::Swift::Container``."""
