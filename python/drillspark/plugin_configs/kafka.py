"""Drill's `kafka` plugin: a Kafka cluster reached with the consumer properties
`kafkaConsumerProps` (Drill 1.22's names and defaults; the reads are
drillspark/spark/storage/kafka.py). A property that holds a credential (`sasl.jaas.config`,
`ssl.key.password`, `basic.auth.user.info`, ...) is a secret: shown masked, kept when posted back
masked, and kept out of every message."""

from __future__ import annotations

import copy
import re
from typing import Any, ClassVar

from drillspark.plugin_configs.base import MASK, PluginConfig, PluginConfigError

PROPS = "kafkaConsumerProps"
# consumer properties whose value is a credential (Kafka's own password/JAAS/secret settings)
_SECRET_PROP = re.compile(r"password|jaas|secret|user\.info|credentials|token", re.IGNORECASE)


def is_secret(prop: str) -> bool:
    return bool(_SECRET_PROP.search(prop))


class KafkaConfig(PluginConfig):
    TYPE: ClassVar[str] = "kafka"
    FIELDS: ClassVar[dict[str, tuple[tuple[type, ...], Any]]] = {PROPS: ((dict,), {})}
    DRILL_SHIPS: ClassVar[dict[str, dict[str, Any]]] = {
        "kafka": {
            "type": "kafka",
            PROPS: {
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

    def check(self, name: str) -> None:
        props = self.raw.get(PROPS)
        for key, value in (props or {}).items():
            if isinstance(value, dict | list):
                raise PluginConfigError(
                    f"storage plugin '{name}' (kafka): property '{key}' of '{PROPS}' must be a "
                    "string, number or boolean"
                )

    def consumer_props(self) -> dict[str, str]:
        """The consumer properties as the client takes them (every value a string)."""
        out: dict[str, str] = {}
        for key, value in (self.raw.get(PROPS) or {}).items():
            if value is not None:
                out[str(key)] = str(value).lower() if isinstance(value, bool) else str(value)
        return out

    def to_json(self, masked: bool = True) -> dict[str, Any]:
        out = super().to_json(masked)
        props = out.get(PROPS)
        if masked and isinstance(props, dict):
            for key, value in props.items():
                if is_secret(key) and isinstance(value, str) and value:
                    props[key] = MASK
        return out

    def keeping_secrets_of(self, old: PluginConfig | None) -> PluginConfig:
        kept = super().keeping_secrets_of(old)
        props = kept.raw.get(PROPS)
        old_props = old.raw.get(PROPS) if old is not None else None
        if not isinstance(props, dict) or not isinstance(old_props, dict):
            return kept
        raw = copy.deepcopy(kept.raw)
        for key, value in props.items():
            if is_secret(key) and value == MASK and old_props.get(key) is not None:
                raw[PROPS][key] = old_props[key]
        return type(self)(raw)

    def secrets(self) -> list[str]:
        found = [
            str(v)
            for k, v in (self.raw.get(PROPS) or {}).items()
            if is_secret(str(k)) and v is not None and str(v) and v != MASK
        ]
        # a JAAS line's password alone too, as a client's message may quote just that
        for text in list(found):
            found += re.findall(r'password="([^"]+)"', text)
        return super().secrets() + found
