"""The pure convergence core: no I/O, no threads, no actors, no database.

Modules:

* :mod:`~thermik.engine.states`: ``Action``, ``Status``, ``State`` (Heat's ``CREATE_COMPLETE``
  strings) and the legal transitions of stacks and resource versions (``STACK``, ``RESOURCE``,
  ``check_transition``).
* :mod:`~thermik.engine.versions`: ``ResourceVersion`` (what the engine needs of a resource row)
  and ``select_versions`` (which version each template name converges).
* :mod:`~thermik.engine.graph`: ``Node(version_id, is_update)``, ``ConvergenceGraph``,
  ``build_graph`` and ``graph_for(operation, ...)``.
* :mod:`~thermik.engine.operations`: ``NodeAction`` (what a resource actor does for a node) and
  the per-operation rules (rollback, cancel, stack action, status reasons).
* :mod:`~thermik.engine.messages`: every message and command, as frozen dataclasses.
* :mod:`~thermik.engine.traversal` / :mod:`~thermik.engine.step`: ``TraversalState`` and the join
  mechanics; :mod:`~thermik.engine.decide`: ``decide(state, event) -> Decision``.

How a StackActor shell drives it (details in :mod:`thermik.engine.decide`):

1. Operation requested: ``check_transition(STACK, stored, <op>_IN_PROGRESS)``; CAS
   ``stack.current_traversal`` to a fresh id and the state to IN_PROGRESS (a lost CAS is
   reported to the caller: ``TraversalConflict``); read the versions; ``select_versions``; insert
   INIT rows for ``missing``; ``graph_for(op, versions, definition.dependencies(), chosen)``;
   then ``decide(state, StartTraversal(id, op, graph, options))``.
2. Execute the decision's commands in order; feed back replies, timer firings, replacement rows.
3. After a restart or takeover: rebuild the graph the same way from the stored rows, and feed
   ``ResumeTraversal`` with the stored ``PersistNodeResult`` records.

A ResourceActor receives ``CheckResource`` and ``CancelResource`` and replies ``ResourceDone``,
``ResourceFailed`` or ``ResourceNeedsReplacement``; its duties are in ``CheckResource``'s
docstring.
"""
