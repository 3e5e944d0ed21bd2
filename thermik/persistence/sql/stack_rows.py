"""Reading stack rows (with their tags) into :class:`~thermik.persistence.values.Stack`.

One stack is read several times per traversal (its compare-and-swap, its final state, every
wait), so its query is built once per filter combination, with its tags in the same
statement: a statement object built anew and a second one for the tags cost SQLAlchemy four
times what SQLite spends on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Row, Select, bindparam, select

from thermik.errors import StackNotFound
from thermik.persistence.crypto import SecretBox
from thermik.persistence.sql.tables import STACK, STACK_TAG
from thermik.persistence.values import Stack


def tags_of(conn: Connection, stack_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The tags of each stack, in the order they were given."""
    if not stack_ids:
        return {}
    stmt = (
        select(STACK_TAG.c.stack_id, STACK_TAG.c.tag)
        .where(STACK_TAG.c.stack_id.in_(stack_ids))
        .order_by(STACK_TAG.c.id)
    )
    tags: dict[str, list[str]] = {}
    for stack_id, tag in conn.execute(stmt):
        tags.setdefault(stack_id, []).append(tag)
    return {key: tuple(value) for key, value in tags.items()}


def to_stacks(conn: Connection, rows: Sequence[Row[Any]], secrets: SecretBox) -> list[Stack]:
    """Stack values for ``rows`` of the stack table."""
    tags = tags_of(conn, [row.id for row in rows])
    return [to_stack(row, tags.get(row.id, ()), secrets) for row in rows]


def to_stack(row: Row[Any], tags: tuple[str, ...], secrets: SecretBox) -> Stack:
    """One stack value (its traversal record unsealed: an adopt's record holds the abandoned
    stack's secrets)."""
    return Stack(
        id=row.id,
        name=row.name,
        tenant=row.tenant,
        username=row.username,
        raw_template_id=row.raw_template_id,
        prev_raw_template_id=row.prev_raw_template_id,
        user_creds_id=row.user_creds_id,
        owner_id=row.owner_id,
        root_id=row.root_id,
        parent_resource_name=row.parent_resource_name,
        nested_depth=row.nested_depth,
        stack_user_project_id=row.stack_user_project_id,
        timeout_mins=row.timeout_mins,
        disable_rollback=row.disable_rollback,
        action=row.action,
        status=row.status,
        status_reason=row.status_reason,
        current_traversal=row.current_traversal,
        current_deps=secrets.unseal(row.current_deps, "stacks", row.id, "current_deps"),
        traversal_started_at=row.traversal_started_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
        deleted_at=row.deleted_at,
        tags=tags,
    )


def _one_stack(by_tenant: bool, show_deleted: bool) -> Select[Any]:
    """A stack's row once per tag (once with no tag when it has none), in the tags' order."""
    stmt = (
        select(STACK, STACK_TAG.c.tag)
        .outerjoin(STACK_TAG, STACK_TAG.c.stack_id == STACK.c.id)
        .where(STACK.c.id == bindparam("stack_id"))
        .order_by(STACK_TAG.c.id)
    )
    if by_tenant:
        stmt = stmt.where(STACK.c.tenant == bindparam("tenant"))
    if not show_deleted:
        stmt = stmt.where(STACK.c.deleted_at.is_(None))
    return stmt


_ONE_STACK = {
    (by_tenant, show_deleted): _one_stack(by_tenant, show_deleted)
    for by_tenant in (False, True)
    for show_deleted in (False, True)
}


def load_stack(
    conn: Connection,
    stack_id: str,
    secrets: SecretBox,
    *,
    tenant: str | None = None,
    show_deleted: bool = False,
) -> Stack:
    """One stack, or ``StackNotFound`` (also for another tenant's or a deleted stack)."""
    stmt = _ONE_STACK[tenant is not None, show_deleted]
    params = {"stack_id": stack_id} if tenant is None else {"stack_id": stack_id, "tenant": tenant}
    rows = conn.execute(stmt, params).all()
    if not rows:
        raise StackNotFound(f"stack {stack_id} not found", stack=stack_id)
    tags = tuple(row.tag for row in rows if row.tag is not None)
    return to_stack(rows[0], tags, secrets)
