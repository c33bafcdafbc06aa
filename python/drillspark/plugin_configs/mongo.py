"""Drill's `mongo` plugin: a MongoDB server (or any server speaking its wire protocol) reached by
a connection URI (Drill 1.22's names and defaults; the reads are drillspark/spark/storage/mongo.py)."""

from __future__ import annotations

import copy
import re
from typing import Any, ClassVar

from drillspark.plugin_configs.base import MASK, PluginConfig, PluginConfigError

# the password of `mongodb://user:secret@host`
_URI_SECRET = re.compile(r"^(mongodb(?:\+srv)?://[^/:@]*:)([^/@]*)(@)")


def uri_secret(uri: str) -> str | None:
    m = _URI_SECRET.match(uri)
    return m.group(2) if m else None


class MongoConfig(PluginConfig):
    TYPE: ClassVar[str] = "mongo"
    FIELDS: ClassVar[dict[str, tuple[tuple[type, ...], Any]]] = {
        "connection": ((str,), "mongodb://localhost:27017/"),
        "batchSize": ((int,), 100),
        "allowDiskUse": ((bool,), False),
        "pluginOptimizations": ((dict,), None),
        "credentialsProvider": ((dict,), None),
        "authMode": ((str,), "SHARED_USER"),
    }
    SECRETS: ClassVar[tuple[tuple[str, ...], ...]] = (
        ("credentialsProvider", "credentials", "password"),
    )
    DRILL_SHIPS: ClassVar[dict[str, dict[str, Any]]] = {
        "mongo": {
            "type": "mongo",
            "connection": "mongodb://localhost:27017/",
            "allowDiskUse": False,
            "enabled": False,
        }
    }

    def check(self, name: str) -> None:
        uri = self.raw.get("connection")
        if uri is not None and not str(uri).startswith(("mongodb://", "mongodb+srv://")):
            raise PluginConfigError(
                f"storage plugin '{name}' (mongo): field 'connection' must be a mongodb:// URI"
            )
        size = self.raw.get("batchSize")
        if size is not None and int(size) < 0:
            raise PluginConfigError(
                f"storage plugin '{name}' (mongo): field 'batchSize' must not be negative"
            )

    def to_json(self, masked: bool = True) -> dict[str, Any]:
        out = super().to_json(masked)
        uri = out.get("connection")
        if masked and isinstance(uri, str) and uri_secret(uri):
            out["connection"] = _URI_SECRET.sub(lambda m: m.group(1) + MASK + m.group(3), uri)
        return out

    def keeping_secrets_of(self, old: PluginConfig | None) -> PluginConfig:
        kept = super().keeping_secrets_of(old)
        uri = kept.raw.get("connection")
        old_uri = old.raw.get("connection") if old is not None else None
        secret = uri_secret(old_uri) if isinstance(old_uri, str) else None
        if isinstance(uri, str) and uri_secret(uri) == MASK and secret is not None:
            raw = copy.deepcopy(kept.raw)
            raw["connection"] = _URI_SECRET.sub(lambda m: m.group(1) + secret + m.group(3), uri)
            kept = type(self)(raw)
        return kept

    def secrets(self) -> list[str]:
        uri = self.raw.get("connection")
        found = uri_secret(uri) if isinstance(uri, str) else None
        return super().secrets() + ([found] if found and found != MASK else [])
