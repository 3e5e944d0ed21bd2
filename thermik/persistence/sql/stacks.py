"""Stacks: creation, the traversal compare-and-swap, listing and soft deletion."""

from __future__ import annotations

import datetime
import functools
import uuid
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, insert, select, update
from sqlalchemy import exc as sa_exc

from thermik.errors import DuplicateName, NotFound, StackNotFound, TraversalConflict
from thermik.persistence import dberrors
from thermik.persistence.sql import stack_queries
from thermik.persistence.sql.base import SqlBase, check_length, reason
from thermik.persistence.sql.engines import insert_new_lease
from thermik.persistence.sql.purge import purge_stack
from thermik.persistence.sql.stack_rows import load_stack, to_stacks
from thermik.persistence.sql.tables import STACK, STACK_TAG
from thermik.persistence.store import StackStore
from thermik.persistence.values import (
    NO_STACK_CHANGES,
    NewStack,
    Stack,
    StackChanges,
    StackQuery,
    changed_fields,
)


def _check_tags(tags: tuple[str, ...]) -> None:
    for index, tag in enumerate(tags):
        check_length(f"tags[{index}]", tag, 80)


class SqlStacks(SqlBase, StackStore):
    """Stacks in SQL."""

    def create_stack(self, new: NewStack) -> Stack:
        check_length("name", new.name, 255)
        check_length("tenant", new.tenant, 64)
        _check_tags(new.tags)
        stack_id = new.id or str(uuid.uuid4())
        now = self._clock()

        def work(conn: Connection) -> Stack:
            root_id, depth = stack_id, 0
            if new.owner_id is not None:
                owner = load_stack(conn, new.owner_id, self._secrets)
                root_id, depth = owner.root_id, owner.nested_depth + 1
            row = _new_stack_row(new, stack_id, root_id, depth, now)
            # A create stored started carries its traversal record: an adopt's holds secrets.
            row["current_deps"] = self._secrets.seal(row["current_deps"])
            conn.execute(insert(STACK).values(**row))
            _insert_tags(conn, stack_id, new.tags)
            if new.lease is not None:
                insert_new_lease(conn, stack_id, new.lease, now)
            return load_stack(conn, stack_id, self._secrets)

        try:
            return self._db.write(work)
        except sa_exc.IntegrityError as error:
            if dberrors.is_unique_violation(error):
                raise DuplicateName(
                    f"a stack named {new.name!r} already exists", stack=new.name
                ) from None
            raise NotFound(
                f"stack {new.name!r} refers to a missing template or credentials"
            ) from None

    def get_stack(
        self, stack_id: str, *, tenant: str | None = None, show_deleted: bool = False
    ) -> Stack:
        return self._db.read(
            lambda conn: load_stack(
                conn, stack_id, self._secrets, tenant=tenant, show_deleted=show_deleted
            )
        )

    def get_stack_by_name(self, tenant: str, name: str) -> Stack:
        stmt = select(STACK).where(
            STACK.c.tenant == tenant, STACK.c.name == name, STACK.c.deleted_at.is_(None)
        )

        def work(conn: Connection) -> list[Stack]:
            return to_stacks(conn, conn.execute(stmt).all(), self._secrets)

        found = self._db.read(work)
        if not found:
            raise StackNotFound(f"stack {name} not found", stack=name)
        return found[0]

    def list_stacks(self, query: StackQuery) -> list[Stack]:
        def work(conn: Connection) -> list[Stack]:
            stmt = select(STACK).where(*stack_queries.conditions(query))
            stmt = stack_queries.page(conn, query, stmt)
            return to_stacks(conn, conn.execute(stmt).all(), self._secrets)

        return self._db.read(work)

    def count_stacks(self, query: StackQuery) -> int:
        stmt = select(func.count()).select_from(STACK).where(*stack_queries.conditions(query))
        return int(self._db.read(lambda conn: conn.execute(stmt).scalar_one()))

    def list_stack_tree(self, root_id: str) -> list[Stack]:
        stmt = (
            select(STACK)
            .where(STACK.c.root_id == root_id, STACK.c.deleted_at.is_(None))
            .order_by(STACK.c.nested_depth, STACK.c.created_at, STACK.c.id)
        )
        return self._db.read(lambda conn: to_stacks(conn, conn.execute(stmt).all(), self._secrets))

    def swap_traversal(
        self, stack_id: str, expected: str, new: str, changes: StackChanges = NO_STACK_CHANGES
    ) -> Stack:
        now = self._clock()
        extra = {"current_traversal": new, "traversal_started_at": now, "updated_at": now}
        return self._fenced_update(stack_id, expected, changes, extra)

    def update_stack(self, stack_id: str, traversal: str, changes: StackChanges) -> Stack:
        return self._fenced_update(stack_id, traversal, changes, {})

    def set_stack_user_project(self, root_id: str, project_id: str) -> None:
        check_length("stack_user_project_id", project_id, 64)
        column = STACK.c.stack_user_project_id
        # No traversal fences it: the project is made by a resource of a running traversal,
        # and no operation on the stack changes it afterwards.
        stmt = (
            update(STACK)
            .where(STACK.c.root_id == root_id)
            .where(column.is_(None) | (column != project_id))
            .values(stack_user_project_id=project_id)
        )
        self._db.write(lambda conn: conn.execute(stmt))

    def soft_delete_stack(
        self, stack_id: str, traversal: str, changes: StackChanges = NO_STACK_CHANGES
    ) -> None:
        extra = {"deleted_at": self._clock(), "deleted_key": stack_id}
        self._fenced_update(stack_id, traversal, changes, extra)

    def purge_deleted(self, older_than: datetime.datetime) -> int:
        stmt = (
            select(STACK.c.id)
            .where(STACK.c.deleted_at < older_than)
            .order_by(STACK.c.nested_depth, STACK.c.deleted_at)
        )
        found = self._db.read(lambda conn: list(conn.execute(stmt).scalars()))
        # One transaction per stack tree (parents first; a purged parent takes its nested stacks
        # with it), so an interrupted purge leaves whole trees behind, never half of one.
        purged = 0
        for stack_id in found:
            purged += self._db.write(functools.partial(purge_stack, stack_id=stack_id))
        return purged

    def _fenced_update(
        self, stack_id: str, traversal: str, changes: StackChanges, extra: dict[str, Any]
    ) -> Stack:
        columns = changed_fields(changes)
        tags = columns.pop("tags", None)
        if tags is not None:
            _check_tags(tags)
        if "status_reason" in columns:
            columns["status_reason"] = reason(columns["status_reason"])
        if "current_deps" in columns:
            columns["current_deps"] = self._secrets.seal(columns["current_deps"])
        if not columns and not extra:
            # Tags alone (or nothing) still change the stack, and the fence needs an UPDATE.
            extra = {"updated_at": self._clock()}
        params = {**columns, **extra, "b_id": stack_id, "b_traversal": traversal}

        def work(conn: Connection) -> Stack:
            if conn.execute(_FENCED, params).rowcount != 1:
                _traversal_lost(conn, stack_id, traversal)
            if tags is not None:
                conn.execute(delete(STACK_TAG).where(STACK_TAG.c.stack_id == stack_id))
                _insert_tags(conn, stack_id, tags)
            return load_stack(conn, stack_id, self._secrets, show_deleted=True)

        return self._db.write(work)


#: The columns to set come from each call's parameters (SQLAlchemy compiles each set once).
_FENCED = update(STACK).where(
    STACK.c.id == bindparam("b_id"),
    STACK.c.current_traversal == bindparam("b_traversal"),
    STACK.c.deleted_at.is_(None),
)


def _traversal_lost(conn: Connection, stack_id: str, expected: str) -> None:
    current = conn.execute(
        select(STACK.c.current_traversal).where(
            STACK.c.id == stack_id, STACK.c.deleted_at.is_(None)
        )
    ).scalar()
    if current is None:
        raise StackNotFound(f"stack {stack_id} not found", stack=stack_id)
    raise TraversalConflict(
        f"stack {stack_id}: traversal {expected or '(none)'} is not current "
        f"(current: {current or '(none)'})",
        stack=stack_id,
    )


def _insert_tags(conn: Connection, stack_id: str, tags: tuple[str, ...]) -> None:
    if tags:
        rows = [{"stack_id": stack_id, "tag": tag} for tag in dict.fromkeys(tags)]
        conn.execute(insert(STACK_TAG), rows)


def _new_stack_row(
    new: NewStack, stack_id: str, root_id: str, depth: int, now: datetime.datetime
) -> dict[str, Any]:
    return {
        "id": stack_id,
        "name": new.name,
        "tenant": new.tenant,
        "username": new.username,
        "raw_template_id": new.raw_template_id,
        "prev_raw_template_id": None,
        "user_creds_id": new.user_creds_id,
        "owner_id": new.owner_id,
        "root_id": root_id,
        "parent_resource_name": new.parent_resource_name,
        "nested_depth": depth,
        "stack_user_project_id": new.stack_user_project_id,
        "timeout_mins": new.timeout_mins,
        "disable_rollback": new.disable_rollback,
        "action": new.action,
        "status": new.status,
        "status_reason": reason(new.status_reason),
        "current_traversal": new.current_traversal,
        "current_deps": new.current_deps,
        "traversal_started_at": now if new.current_traversal else None,
        "created_at": now,
        "updated_at": None,
        "deleted_at": None,
        "deleted_key": "",
    }
