"""Removing a soft-deleted stack for good, with every row that belongs only to it."""

from __future__ import annotations

from sqlalchemy import Connection, delete, exists, select

from thermik.persistence.sql.tables import (
    PROPERTIES_DATA,
    RAW_TEMPLATE,
    RAW_TEMPLATE_FILES,
    RESOURCE,
    STACK,
    USER_CREDS,
)


def _subtree(conn: Connection, stack_id: str) -> list[str]:
    found, frontier = [stack_id], [stack_id]
    while frontier:
        stmt = select(STACK.c.id).where(STACK.c.owner_id.in_(frontier))
        frontier = list(conn.execute(stmt).scalars())
        found.extend(frontier)
    return found


def purge_stack(conn: Connection, stack_id: str) -> int:
    """Delete ``stack_id`` and its nested stacks with all their rows; how many stacks went.

    Tags, resources (and their data), events, join logs, snapshots and leases go by cascade;
    templates, credentials and property blobs are deleted here once nothing refers to them.
    """
    if conn.execute(select(STACK.c.id).where(STACK.c.id == stack_id)).first() is None:
        return 0
    ids = _subtree(conn, stack_id)
    stacks = conn.execute(
        select(STACK.c.raw_template_id, STACK.c.prev_raw_template_id, STACK.c.user_creds_id).where(
            STACK.c.id.in_(ids)
        )
    ).all()
    resources = conn.execute(
        select(
            RESOURCE.c.current_template_id, RESOURCE.c.properties_data_id, RESOURCE.c.attr_data_id
        ).where(RESOURCE.c.stack_id.in_(ids))
    ).all()
    templates = {t for row in stacks for t in row[:2]} | {row[0] for row in resources}
    blobs = {blob for row in resources for blob in row[1:]}
    creds = {row[2] for row in stacks}
    conn.execute(delete(STACK).where(STACK.c.id == stack_id))
    _delete_unreferenced(conn, templates - {None}, blobs - {None}, creds - {None})
    return len(ids)


def _delete_unreferenced(
    conn: Connection, templates: set[int], blobs: set[int], creds: set[int]
) -> None:
    conn.execute(delete(PROPERTIES_DATA).where(PROPERTIES_DATA.c.id.in_(blobs)))
    conn.execute(
        delete(USER_CREDS).where(
            USER_CREDS.c.id.in_(creds), ~exists().where(STACK.c.user_creds_id == USER_CREDS.c.id)
        )
    )
    conn.execute(
        delete(RAW_TEMPLATE).where(
            RAW_TEMPLATE.c.id.in_(templates),
            ~exists().where(STACK.c.raw_template_id == RAW_TEMPLATE.c.id),
            ~exists().where(STACK.c.prev_raw_template_id == RAW_TEMPLATE.c.id),
            ~exists().where(RESOURCE.c.current_template_id == RAW_TEMPLATE.c.id),
        )
    )
    conn.execute(
        delete(RAW_TEMPLATE_FILES).where(
            ~exists().where(RAW_TEMPLATE.c.files_id == RAW_TEMPLATE_FILES.c.id)
        )
    )
