"""The orchestration service: what every request needs before and after convergence.

It parses and validates templates, environments and parameters, stores stacks and their raw
templates, asks the actor runtime to converge them, and shows stacks, resources, events and
outputs from what the runtime stored. :class:`Orchestrator` implements the REST API's
:class:`thermik.api.boundary.OrchestrationService`; :mod:`thermik.orchestration.validation`
is the resource check the template CLI shares with it.
"""

from __future__ import annotations

from thermik.orchestration.orchestrator import Orchestrator

__all__ = ["Orchestrator"]
