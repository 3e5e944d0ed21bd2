"""Creates of cloud objects that carry no creation tag (Neutron's address scopes and RBAC
policies, Nova's host aggregates).

Such an object is found again after an engine crash by a key recorded before its create (its
name, or what the cloud keeps unique). A create the cloud refused made nothing; that key must
then be forgotten, or the version's delete would take another stack's object of the same key
for its own orphan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from thermik.errors import CloudError
from thermik.resources.context import ResourceContext

T = TypeVar("T")


def refused_forgets(ctx: ResourceContext, keys: Iterable[str], create: Callable[[], T]) -> T:
    """``create()``; when the cloud refuses it (an answer of 4xx), the resource data ``keys``
    are removed before the error goes on."""
    try:
        return create()
    except CloudError as error:
        if error.status is not None and 400 <= error.status < 500:
            for key in keys:
                ctx.data.delete(key)
        raise
