"""The raw template a request stores before a step that may be refused.

A stack create, an update, a snapshot restore and a nested stack store their raw template
first, then create the stack row or start a converge. When that step is refused, nothing refers
to the template: :func:`dropped_if_refused` deletes it again, so a refused request leaves
nothing behind. An engine that did not answer in time (service mode) refused nothing: it may
have taken the step, so its template stays.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from thermik.errors import Conflict, EngineUnavailable, ThermikError
from thermik.persistence.store import Store


@contextlib.contextmanager
def dropped_if_refused(store: Store, template_id: int | None) -> Iterator[None]:
    """Delete the stored template ``template_id`` if the block raises a
    :class:`~thermik.errors.ThermikError`, which propagates as raised (``None``: no template was
    stored, nothing to delete)."""
    try:
        yield
    except ThermikError as error:
        # Only a refusal is known to leave the template unused: after any other error the step
        # may have taken it, and a stray template is safer than a stack pointing at none.
        if template_id is not None and refused(error):
            # In use after all (the step took it): the request's own error is the answer.
            with contextlib.suppress(Conflict):
                store.delete_raw_template(template_id)
        raise


def refused(error: ThermikError) -> bool:
    """Whether ``error`` means the step was not taken: every error but an engine's silence
    (its RPC call timed out, and the engine may be carrying the step out)."""
    return not isinstance(error, EngineUnavailable)
