"""Software-deployment metadata delivery (DESIGN.md §3).

- :mod:`~thermik.delivery.base`: the :class:`DeliveryBackend` contract and its endpoints;
  :mod:`~thermik.delivery.loader` finds backends by name (entry point group
  ``thermik.delivery``): ``builtin`` (engine-served signed URLs, the embedded default),
  ``swift``, ``zaqar`` and ``fakeswift`` (a fault-injecting in-process Swift).
- :mod:`~thermik.delivery.document`: the metadata document, derived configs and signal
  judgement, exactly as Heat's agents expect them (pure).
- :mod:`~thermik.delivery.metadata_writer`: the per-server delivery algorithm (no I/O), run by
  :mod:`~thermik.delivery.metadata_actor` (one pykka actor per server) and by the
  deterministic race harness :mod:`~thermik.delivery.race`.
"""
