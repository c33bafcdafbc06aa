"""A plugin of a type drillspark does not query (`hbase`, `splunk`, ...): stored and listed as
Drill stores and lists it; a query naming it says so."""

from __future__ import annotations

from typing import ClassVar

from drillspark.plugin_configs.base import PluginConfig

# Drill's password-like fields, whatever the type
_SECRET_KEYS = ("password", "secretKey", "apiKey", "token", "accessToken", "clientSecret")


class UnsupportedConfig(PluginConfig):
    QUERYABLE: ClassVar[bool] = False
    SECRETS: ClassVar[tuple[tuple[str, ...], ...]] = tuple((k,) for k in _SECRET_KEYS) + (
        ("credentialsProvider", "credentials", "password"),
    )
