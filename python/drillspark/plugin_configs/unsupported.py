"""A plugin of a type drillspark does not query (`hbase`, `splunk`, ...): stored and listed as
Drill stores and lists it; a query naming it says so."""

from __future__ import annotations

from typing import Any, ClassVar

from drillspark.plugin_configs.base import PluginConfig

# Drill's password-like fields, whatever the type
_SECRET_KEYS = ("password", "secretKey", "apiKey", "token", "accessToken", "clientSecret")


class UnsupportedConfig(PluginConfig):
    QUERYABLE: ClassVar[bool] = False
    DRILL_SHIPS: ClassVar[dict[str, dict[str, Any]]] = {
        "kafka": {
            "type": "kafka",
            "kafkaConsumerProps": {
                "bootstrap.servers": "localhost:9092",
                "group.id": "drill-query-consumer",
                "key.deserializer": "org.apache.kafka.common.serialization.ByteArrayDeserializer",
                "value.deserializer": (
                    "org.apache.kafka.common.serialization.ByteArrayDeserializer"
                ),
                "session.timeout.ms": "30000",
                "enable.auto.commit": "true",
                "auto.offset.reset": "earliest",
            },
            "enabled": False,
        }
    }
    SECRETS: ClassVar[tuple[tuple[str, ...], ...]] = tuple((k,) for k in _SECRET_KEYS) + (
        ("credentialsProvider", "credentials", "password"),
    )
