"""Stack listings: Heat's filters, tag expressions, sorting and marker/limit paging."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Connection, Select, and_, exists, func, not_, or_, select

from thermik.errors import InvalidRequest
from thermik.persistence.sql.tables import STACK, STACK_TAG
from thermik.persistence.values import STACK_FILTERS, STACK_SORT_KEYS, StackQuery


def conditions(query: StackQuery) -> list[ColumnElement[bool]]:
    """The WHERE conditions of ``query`` without paging."""
    where: list[ColumnElement[bool]] = []
    if query.tenant is not None:
        where.append(STACK.c.tenant == query.tenant)
    if not query.show_deleted:
        where.append(STACK.c.deleted_at.is_(None))
    if not query.show_nested:
        where.append(STACK.c.owner_id.is_(None))
    for key, accepted in query.filters.items():
        if key not in STACK_FILTERS:
            raise InvalidRequest(
                f"unknown stack filter (known: {', '.join(STACK_FILTERS)})", path=("filters", key)
            )
        values = [accepted] if isinstance(accepted, str) else list(accepted)
        where.append(STACK.c[key].in_(values))
    where.extend(_tag_conditions(query))
    return where


def _has_tag(tags: tuple[str, ...]) -> ColumnElement[bool]:
    return exists().where(STACK_TAG.c.stack_id == STACK.c.id, STACK_TAG.c.tag.in_(tags))


def _has_all(tags: tuple[str, ...]) -> ColumnElement[bool]:
    return and_(*(_has_tag((tag,)) for tag in tags))


def _tag_conditions(query: StackQuery) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = []
    if query.tags:
        where.append(_has_all(query.tags))
    if query.tags_any:
        where.append(_has_tag(query.tags_any))
    if query.not_tags:
        where.append(not_(_has_all(query.not_tags)))
    if query.not_tags_any:
        where.append(not_(_has_tag(query.not_tags_any)))
    return where


def _sort_column(key: str) -> ColumnElement[Any]:
    if key not in STACK_SORT_KEYS:
        raise InvalidRequest(
            f"unknown sort key {key!r} (known: {', '.join(STACK_SORT_KEYS)})", path=("sort_keys",)
        )
    if key == "updated_at":
        # A stack never updated sorts by its creation, as Heat shows it.
        return func.coalesce(STACK.c.updated_at, STACK.c.created_at)
    return STACK.c[key]


def page(conn: Connection, query: StackQuery, stmt: Select[Any]) -> Select[Any]:
    """``stmt`` sorted, started after the marker and limited as ``query`` asks."""
    if query.sort_dir not in ("asc", "desc"):
        raise InvalidRequest(f"sort direction must be asc or desc, not {query.sort_dir!r}")
    column = _sort_column(query.sort_key)
    ascending = query.sort_dir == "asc"
    order = (column.asc(), STACK.c.id.asc()) if ascending else (column.desc(), STACK.c.id.desc())
    stmt = stmt.order_by(*order)
    if query.marker is not None:
        found = conn.execute(select(column, STACK.c.id).where(STACK.c.id == query.marker)).first()
        if found is None:
            raise InvalidRequest(f"marker {query.marker} is not a stack", path=("marker",))
        value, marker_id = found
        if ascending:
            after = or_(column > value, and_(column == value, STACK.c.id > marker_id))
        else:
            after = or_(column < value, and_(column == value, STACK.c.id < marker_id))
        stmt = stmt.where(after)
    if query.limit is not None:
        if query.limit < 0:
            raise InvalidRequest("limit must not be negative", path=("limit",))
        stmt = stmt.limit(query.limit)
    return stmt
