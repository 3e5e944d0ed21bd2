"""The Core tables behind the models: the store runs Core statements for speed and clarity."""

from __future__ import annotations

from typing import cast

from sqlalchemy import Table

from thermik.persistence import models, models_software


def _table(model: type[models.Base]) -> Table:
    return cast("Table", model.__table__)


RAW_TEMPLATE = _table(models.RawTemplate)
RAW_TEMPLATE_FILES = _table(models.RawTemplateFiles)
USER_CREDS = _table(models.UserCreds)
STACK = _table(models.Stack)
STACK_TAG = _table(models.StackTag)
RESOURCE = _table(models.Resource)
RESOURCE_DATA = _table(models.ResourceData)
PROPERTIES_DATA = _table(models.ResourcePropertiesData)
EVENT = _table(models.Event)
JOIN_ARRIVAL = _table(models.JoinArrival)
SERVER_METADATA = _table(models_software.ServerMetadata)
SOFTWARE_CONFIG = _table(models_software.SoftwareConfig)
SOFTWARE_DEPLOYMENT = _table(models_software.SoftwareDeployment)
SNAPSHOT = _table(models_software.Snapshot)
ENGINE_SERVICE = _table(models_software.EngineService)
STACK_LEASE = _table(models_software.StackLease)
DELIVERY_OBJECT = _table(models_software.DeliveryObject)
