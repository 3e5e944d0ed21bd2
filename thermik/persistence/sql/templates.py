"""Raw templates: the document, its environment (parameter values encrypted) and files
(encrypted with a key)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection, bindparam, delete, exists, insert, or_, select
from sqlalchemy import exc as sa_exc

from thermik.errors import Conflict, NotFound
from thermik.persistence import crypto, dberrors
from thermik.persistence.sql.base import SqlBase, new_id
from thermik.persistence.sql.tables import RAW_TEMPLATE, RAW_TEMPLATE_FILES, RESOURCE, STACK
from thermik.persistence.store import TemplateStore
from thermik.persistence.values import JSON, RawTemplate

_WITH_FILES = (
    select(RAW_TEMPLATE, RAW_TEMPLATE_FILES.c.files)
    .outerjoin(RAW_TEMPLATE_FILES, RAW_TEMPLATE.c.files_id == RAW_TEMPLATE_FILES.c.id)
    .where(RAW_TEMPLATE.c.id == bindparam("b_id"))
)
_IN_USE = select(
    or_(
        exists().where(STACK.c.raw_template_id == bindparam("b_id")),
        exists().where(STACK.c.prev_raw_template_id == bindparam("b_id")),
        exists().where(RESOURCE.c.current_template_id == bindparam("b_id")),
    )
)
_DELETE_TEMPLATE = delete(RAW_TEMPLATE).where(RAW_TEMPLATE.c.id == bindparam("b_id"))


class SqlTemplates(SqlBase, TemplateStore):
    """Raw templates in SQL."""

    def store_raw_template(
        self,
        template: Mapping[str, JSON],
        environment: Mapping[str, JSON],
        files: Mapping[str, str],
        hidden_parameters: Iterable[str] = (),
    ) -> int:
        hidden = sorted(set(hidden_parameters))
        stored_env = {"environment": self._seal(environment, hidden), "hidden": hidden}
        digest = _digest(files) if files else None
        # Environment files among them may hold parameter values.
        sealed_files = self._secrets.seal(dict(files)) if files else None
        now = self._clock()

        def work(conn: Connection) -> int:
            files_id = _files_row(conn, digest, sealed_files, now) if digest else None
            values = {"template": template, "environment": stored_env, "files_id": files_id}
            result = conn.execute(insert(RAW_TEMPLATE).values(created_at=now, **values))
            return new_id(result)

        return self._db.write(work)

    def get_raw_template(self, template_id: int) -> RawTemplate:
        row = self._db.read(
            lambda conn: conn.execute(_WITH_FILES, {"b_id": template_id}).one_or_none()
        )
        if row is None:
            raise NotFound(f"raw template {template_id} not found")
        stored = row.environment
        return RawTemplate(
            id=row.id,
            template=row.template,
            environment=self._unseal(stored["environment"]),
            files=self._secrets.unseal(row.files, "raw_templates", template_id, "files") or {},
            hidden_parameters=frozenset(stored["hidden"]),
        )

    def delete_raw_template(self, template_id: int) -> None:
        params = {"b_id": template_id}

        def work(conn: Connection) -> None:
            if conn.execute(_IN_USE, params).scalar():
                raise Conflict(f"raw template {template_id} is still in use")
            conn.execute(_DELETE_TEMPLATE, params)

        self._db.write(work)

    def _seal(self, environment: Mapping[str, JSON], hidden: list[str]) -> dict[str, JSON]:
        sealed = dict(environment)
        encrypted: list[list[str]] = []
        for section in crypto.SECRET_SECTIONS:
            values = environment.get(section)
            if not isinstance(values, Mapping):
                continue
            copy = dict(values)
            # With a key every value is sealed: a nested stack's parameters are its parent's
            # properties, which may derive from a hidden parameter or a generated secret.
            names = sorted(copy) if self._secrets.sealing else hidden
            for name in names:
                if name in copy:
                    plain = json.dumps(copy[name])
                    copy[name] = self._secrets.encrypt(plain, section, name)
                    encrypted.append([section, name])
            sealed[section] = copy
        return {"document": sealed, "encrypted": encrypted}

    def _unseal(self, sealed: Mapping[str, JSON]) -> dict[str, JSON]:
        environment = dict(sealed["document"])
        for section, name in sealed["encrypted"]:
            values = dict(environment[section])
            token = values[name]
            values[name] = json.loads(self._secrets.decrypt(token, crypto.METHOD, section, name))
            environment[section] = values
        return environment


def _digest(files: Mapping[str, str]) -> str:
    canonical = json.dumps(files, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _files_row(conn: Connection, digest: str, files: JSON, now: Any) -> int:
    """The id of the files row with ``digest``, inserted if no template shares it yet."""
    find = select(RAW_TEMPLATE_FILES.c.id).where(RAW_TEMPLATE_FILES.c.digest == digest)
    found = conn.execute(find).scalar()
    if found is not None:
        return int(found)
    try:
        with conn.begin_nested():
            stmt = insert(RAW_TEMPLATE_FILES).values(digest=digest, files=files, created_at=now)
            return new_id(conn.execute(stmt))
    except sa_exc.IntegrityError as error:
        # Another engine stored the same files between our SELECT and INSERT.
        if not dberrors.is_unique_violation(error):
            raise
        return int(conn.execute(find).scalar_one())
