"""Software configs, software deployments and each server's metadata generation."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, Row, delete, insert, select, update
from sqlalchemy import exc as sa_exc

from thermik.errors import Conflict, GenerationConflict, NotFound
from thermik.persistence import dberrors
from thermik.persistence.crypto import SecretBox
from thermik.persistence.software_values import (
    DeploymentChanges,
    NewSoftwareDeployment,
    SoftwareConfig,
    SoftwareDeployment,
)
from thermik.persistence.sql.base import SqlBase, check_length, reason
from thermik.persistence.sql.tables import SERVER_METADATA, SOFTWARE_CONFIG, SOFTWARE_DEPLOYMENT
from thermik.persistence.store import SoftwareStore
from thermik.persistence.values import JSON, changed_fields

_GENERATION = select(SERVER_METADATA.c.generation)


def _to_config(secrets: SecretBox, row: Row[Any]) -> SoftwareConfig:
    return SoftwareConfig(
        id=row.id,
        name=row.name,
        group=row.group,
        config=secrets.unseal(row.config, "software_config", row.id),
        tenant=row.tenant,
        created_at=row.created_at,
    )


def _to_deployment(secrets: SecretBox, row: Row[Any]) -> SoftwareDeployment:
    return SoftwareDeployment(
        id=row.id,
        config_id=row.config_id,
        server_id=row.server_id,
        tenant=row.tenant,
        input_values=secrets.unseal(row.input_values, "software_deployment", row.id),
        output_values=secrets.unseal(row.output_values, "software_deployment", row.id),
        action=row.action,
        status=row.status,
        status_reason=row.status_reason,
        stack_user_project_id=row.stack_user_project_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _config_missing(config_id: str) -> NotFound:
    return NotFound(f"software config {config_id} not found")


def _deployment_missing(deployment_id: str) -> NotFound:
    return NotFound(f"software deployment {deployment_id} not found")


class SqlSoftware(SqlBase, SoftwareStore):
    """Software configs and deployments in SQL."""

    def create_software_config(
        self,
        name: str,
        group: str,
        config: Mapping[str, JSON],
        tenant: str,
        *,
        config_id: str | None = None,
    ) -> SoftwareConfig:
        check_length("name", name, 255)
        check_length("group", group, 255)
        value = SoftwareConfig(
            config_id or str(uuid.uuid4()), name, group, dict(config), tenant, self._clock()
        )
        row = {field: getattr(value, field) for field in SoftwareConfig.__slots__}
        row["config"] = self._secrets.seal(value.config)
        self._db.write(lambda conn: conn.execute(insert(SOFTWARE_CONFIG).values(**row)))
        return value

    def get_software_config(self, config_id: str, *, tenant: str | None = None) -> SoftwareConfig:
        row = self._fetch_by_id(SOFTWARE_CONFIG, config_id, tenant)
        if row is None:
            raise _config_missing(config_id)
        return _to_config(self._secrets, row)

    def list_software_configs(
        self, tenant: str | None, *, marker: str | None = None, limit: int | None = None
    ) -> list[SoftwareConfig]:
        def work(conn: Connection) -> list[Row[Any]]:
            stmt = select(SOFTWARE_CONFIG).order_by(
                SOFTWARE_CONFIG.c.created_at, SOFTWARE_CONFIG.c.id
            )
            if tenant is not None:
                stmt = stmt.where(SOFTWARE_CONFIG.c.tenant == tenant)
            if marker is not None:
                seen = conn.execute(
                    select(SOFTWARE_CONFIG.c.created_at).where(SOFTWARE_CONFIG.c.id == marker)
                ).scalar()
                if seen is None:
                    raise _config_missing(marker)
                stmt = stmt.where(
                    (SOFTWARE_CONFIG.c.created_at > seen)
                    | ((SOFTWARE_CONFIG.c.created_at == seen) & (SOFTWARE_CONFIG.c.id > marker))
                )
            if limit is not None:
                stmt = stmt.limit(limit)
            return list(conn.execute(stmt).all())

        return [_to_config(self._secrets, row) for row in self._db.read(work)]

    def delete_software_config(self, config_id: str, *, tenant: str | None = None) -> None:
        self.get_software_config(config_id, tenant=tenant)
        stmt = delete(SOFTWARE_CONFIG).where(SOFTWARE_CONFIG.c.id == config_id)
        try:
            self._db.write(lambda conn: conn.execute(stmt))
        except sa_exc.IntegrityError as error:
            if not dberrors.is_foreign_key_violation(error):
                raise
            raise Conflict(f"software config {config_id} is used by a deployment") from None

    def create_software_deployment(self, new: NewSoftwareDeployment) -> SoftwareDeployment:
        check_length("server_id", new.server_id, 255)
        value = SoftwareDeployment(
            id=new.id or str(uuid.uuid4()),
            config_id=new.config_id,
            server_id=new.server_id,
            tenant=new.tenant,
            input_values=dict(new.input_values),
            output_values={},
            action=new.action,
            status=new.status,
            status_reason=reason(new.status_reason),
            stack_user_project_id=new.stack_user_project_id,
            created_at=self._clock(),
            updated_at=None,
        )
        row = {field: getattr(value, field) for field in SoftwareDeployment.__slots__}
        row["input_values"] = self._secrets.seal(value.input_values)
        row["output_values"] = self._secrets.seal(value.output_values)
        stmt = insert(SOFTWARE_DEPLOYMENT).values(**row)
        self._write_referring(
            lambda conn: conn.execute(stmt), lambda: _config_missing(new.config_id)
        )
        return value

    def get_software_deployment(
        self, deployment_id: str, *, tenant: str | None = None
    ) -> SoftwareDeployment:
        row = self._fetch_by_id(SOFTWARE_DEPLOYMENT, deployment_id, tenant)
        if row is None:
            raise _deployment_missing(deployment_id)
        return _to_deployment(self._secrets, row)

    def list_software_deployments(
        self, *, tenant: str | None = None, server_id: str | None = None
    ) -> list[SoftwareDeployment]:
        stmt = select(SOFTWARE_DEPLOYMENT).order_by(
            SOFTWARE_DEPLOYMENT.c.created_at, SOFTWARE_DEPLOYMENT.c.id
        )
        if tenant is not None:
            stmt = stmt.where(SOFTWARE_DEPLOYMENT.c.tenant == tenant)
        if server_id is not None:
            stmt = stmt.where(SOFTWARE_DEPLOYMENT.c.server_id == server_id)
        rows = self._db.read(lambda conn: conn.execute(stmt).all())
        return [_to_deployment(self._secrets, row) for row in rows]

    def update_software_deployment(
        self, deployment_id: str, changes: DeploymentChanges
    ) -> SoftwareDeployment:
        columns = changed_fields(changes)
        if "status_reason" in columns:
            columns["status_reason"] = reason(columns["status_reason"])
        for name in ("input_values", "output_values"):
            if name in columns:
                columns[name] = self._secrets.seal(dict(columns[name]))
        where = SOFTWARE_DEPLOYMENT.c.id == deployment_id

        def work(conn: Connection) -> SoftwareDeployment:
            stmt = (
                update(SOFTWARE_DEPLOYMENT)
                .where(where)
                .values(**columns, updated_at=self._clock())
            )
            if conn.execute(stmt).rowcount != 1:
                raise _deployment_missing(deployment_id)
            row = conn.execute(select(SOFTWARE_DEPLOYMENT).where(where)).one()
            return _to_deployment(self._secrets, row)

        return self._write_referring(work, lambda: _config_missing(str(changes.config_id)))

    def delete_software_deployment(self, deployment_id: str) -> None:
        stmt = delete(SOFTWARE_DEPLOYMENT).where(SOFTWARE_DEPLOYMENT.c.id == deployment_id)
        self._db.write(lambda conn: conn.execute(stmt))

    def get_metadata_generation(self, server_id: str) -> int:
        stmt = _GENERATION.where(SERVER_METADATA.c.server_id == server_id)
        return int(self._db.read(lambda conn: conn.execute(stmt).scalar()) or 0)

    def bump_metadata_generation(self, server_id: str, expected: int) -> int:
        check_length("server_id", server_id, 255)
        now = self._clock()
        bump = (
            update(SERVER_METADATA)
            .where(SERVER_METADATA.c.server_id == server_id)
            .where(SERVER_METADATA.c.generation == expected)
            .values(generation=expected + 1, updated_at=now)
        )

        def work(conn: Connection) -> int:
            if conn.execute(bump).rowcount == 1:
                return expected + 1
            if expected == 0 and _insert_first_generation(conn, server_id, now):
                return 1
            current = conn.execute(_GENERATION.where(SERVER_METADATA.c.server_id == server_id))
            raise GenerationConflict(
                f"server {server_id}: metadata generation is {current.scalar() or 0}, "
                f"expected {expected}"
            )

        return self._db.write(work)


def _insert_first_generation(conn: Connection, server_id: str, now: Any) -> bool:
    """Create the server's row at generation 1; ``False`` if another writer created it first."""
    try:
        with conn.begin_nested():
            row = {"server_id": server_id, "generation": 1, "updated_at": now}
            conn.execute(insert(SERVER_METADATA).values(**row))
    except sa_exc.IntegrityError as error:
        if not dberrors.is_unique_violation(error):
            raise
        return False
    return True
