"""Drill's `jdbc` plugin: a database reached through its JDBC driver."""

from __future__ import annotations

import copy
import re
from typing import Any, ClassVar

from drillspark.plugin_configs.base import MASK, PluginConfig, PluginConfigError

# credentials a JDBC URL may carry: `//user:secret@host`, `password=secret` (`;` or `&` ends it)
_URL_SECRETS = (
    re.compile(r"(//[^/:@;?&]*:)([^/@;?&]+)(@)"),
    re.compile(r"([?&;](?:password|pwd|secret|token)=)([^&;]*)()", re.IGNORECASE),
)


def url_secrets(url: str) -> list[str]:
    return [m.group(2) for p in _URL_SECRETS for m in p.finditer(url)]


def mask_url(url: str) -> str:
    for pattern in _URL_SECRETS:
        url = pattern.sub(lambda m: m.group(1) + MASK + m.group(3), url)
    return url


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

    def to_json(self, masked: bool = True) -> dict[str, Any]:
        out = super().to_json(masked)
        if masked and isinstance(out.get("url"), str):
            out["url"] = mask_url(out["url"])
        return out

    def keeping_secrets_of(self, old: PluginConfig | None) -> PluginConfig:
        kept = super().keeping_secrets_of(old)
        url, old_url = kept.raw.get("url"), old.raw.get("url") if old is not None else None
        if isinstance(url, str) and isinstance(old_url, str) and MASK in url:
            # the URL as it was shown: the stored one's credentials, in their order
            values = iter(url_secrets(old_url))

            def restore(m: re.Match[str]) -> str:
                value = m.group(2)
                return m.group(1) + (next(values, value) if value == MASK else value) + m.group(3)

            for pattern in _URL_SECRETS:
                url = pattern.sub(restore, url)
            raw = copy.deepcopy(kept.raw)
            raw["url"] = url
            kept = type(self)(raw)
        return kept

    def secrets(self) -> list[str]:
        url = self.raw.get("url")
        found = url_secrets(url) if isinstance(url, str) else []
        return super().secrets() + [v for v in found if v and v != MASK]

    def check(self, name: str) -> None:
        for key in ("url",):  # without `driver`, the one the URL names is found by the URL
            if not self.raw.get(key):
                raise PluginConfigError(
                    f"storage plugin '{name}' (jdbc): field '{key}' is required"
                )
        if not str(self.raw["url"]).strip().startswith("jdbc:"):
            raise PluginConfigError(
                f"storage plugin '{name}' (jdbc): 'url' must be a JDBC URL (jdbc:...), not "
                f"{mask_url(str(self.raw['url']))!r}"
            )
