"""The actor shell around the pure convergence core: pykka actors, timers and the runtime facade.

Entry point: :class:`~thermik.actors.runtime.EngineRuntime` (``RUNTIME_CONTRACT.md``). Inside:

* :mod:`~thermik.actors.stack`: the StackActor, one per stack with a traversal; it feeds
  :func:`thermik.engine.decide.decide` and executes its commands in order (join records are
  appended, in batches, before the successors they enable are dispatched).
* :mod:`~thermik.actors.resource` and :mod:`~thermik.actors.node`: the ResourceActor, one per
  resource version with work, and the work of one node (lock the row, resolve and validate the
  properties, run the plugin through executor steps, poll on timers, settle the row); its parts
  :mod:`~thermik.actors.node_state`, :mod:`~thermik.actors.node_outcomes`,
  :mod:`~thermik.actors.node_suspension`, and its decisions :mod:`~thermik.actors.node_rules`.
* :mod:`~thermik.actors.steps`: the plugin calls, run on the shared executor.
* :mod:`~thermik.actors.planning` and :mod:`~thermik.actors.plan`: choosing versions, inserting
  INIT rows, building the graph; what every node of a traversal shares.
* :mod:`~thermik.actors.recovery`: taking over stacks whose engine died.
* :mod:`~thermik.actors.stored` and :mod:`~thermik.actors.resolution`: resolving
  ``get_resource``/``get_attr`` from stored values and from a join's data.
* :mod:`~thermik.actors.context`, :mod:`~thermik.actors.rows`,
  :mod:`~thermik.actors.stack_changes`, :mod:`~thermik.actors.codec`: what is written and how.
* :mod:`~thermik.actors.timers`, :mod:`~thermik.actors.table`,
  :mod:`~thermik.actors.services`: the machinery (one timer thread, actors on pooled threads that
  exist only while they have work, the shared services).

Actors talk with ``tell``; ``ask`` is only used at the edge (the runtime's methods).
"""
