"""Drill's `jdbc` plugin: a database reached through its JDBC driver."""

from __future__ import annotations

from typing import Any, ClassVar

from drillspark.plugin_configs.base import PluginConfig, PluginConfigError


class JdbcConfig(PluginConfig):
    TYPE: ClassVar[str] = "jdbc"
    FIELDS: ClassVar[dict[str, tuple[tuple[type, ...], Any]]] = {
        "driver": ((str,), None),
        "url": ((str,), None),
        "username": ((str,), None),
        "password": ((str,), None),
        "caseInsensitiveTableNames": ((bool,), False),
        "sourceParameters": ((dict,), None),
        "writable": ((bool,), False),
        "writerBatchSize": ((int,), 10000),
        "authMode": ((str,), "SHARED_USER"),
    }
    SECRETS: ClassVar[tuple[tuple[str, ...], ...]] = (
        ("password",),
        ("credentialsProvider", "credentials", "password"),
    )

    def check(self, name: str) -> None:
        for key in ("driver", "url"):
            if not self.raw.get(key):
                raise PluginConfigError(
                    f"storage plugin '{name}' (jdbc): field '{key}' is required"
                )
