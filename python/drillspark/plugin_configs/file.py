"""Drill's `file` plugin: a file system (`connection`: `file:///`, `s3a://bucket`,
`hdfs://host:port`, `classpath:///`), its Hadoop settings (`config`, this plugin's alone), its
workspaces and its formats."""

from __future__ import annotations

from typing import Any, ClassVar

from drillspark.plugin_configs.base import PluginConfig, PluginConfigError

WORKSPACE_FIELDS: dict[str, tuple[tuple[type, ...], Any]] = {
    "location": ((str,), "/"),
    "writable": ((bool,), False),
    "defaultInputFormat": ((str,), None),
    "allowAccessOutsideWorkspace": ((bool,), False),
}
# Hadoop settings whose values are secrets (S3A's keys; a credential provider's path is not)
SECRET_SETTINGS = ("fs.s3a.secret.key", "fs.s3a.access.key", "fs.s3a.session.token")


class FileConfig(PluginConfig):
    TYPE: ClassVar[str] = "file"
    FIELDS: ClassVar[dict[str, tuple[tuple[type, ...], Any]]] = {
        "connection": ((str,), "file:///"),
        "config": ((dict,), None),
        "workspaces": ((dict,), None),
        "formats": ((dict,), None),
        "authMode": ((str,), "SHARED_USER"),
    }
    # a plan's storage `type` read as this type: Drill's, and older spellings plans use
    PLAN_TYPES: ClassVar[tuple[str, ...]] = ("file", "fs", "dfs")
    SECRETS: ClassVar[tuple[tuple[str, ...], ...]] = tuple(
        ("config", key) for key in SECRET_SETTINGS
    ) + (("credentialsProvider", "credentials", "password"),)
    # (its formats are Drill's core bootstrap formats: the server's catalog adds them)
    DRILL_SHIPS: ClassVar[dict[str, dict[str, Any]]] = {
        "s3": {
            "type": "file",
            "connection": "s3a://my.bucket.location.com",
            "config": {"fs.s3a.access.key": "ID", "fs.s3a.secret.key": "SECRET"},
            "workspaces": {
                "root": {"location": "/", "writable": False},
                "tmp": {"location": "/tmp", "writable": True},
            },
            "enabled": False,
        }
    }

    def check(self, name: str) -> None:
        for ws, spec in (self.raw.get("workspaces") or {}).items():
            if not isinstance(spec, dict):
                raise PluginConfigError(
                    f"storage plugin '{name}': workspace '{ws}' must be an object "
                    '({"location": ..., "writable": ...})'
                )
            for key, (kinds, _default) in WORKSPACE_FIELDS.items():
                value = spec.get(key)
                if value is not None and not isinstance(value, kinds):
                    raise PluginConfigError(
                        f"storage plugin '{name}': workspace '{ws}': field '{key}' has the "
                        f"wrong type ({type(value).__name__})"
                    )
        for fmt, spec in (self.raw.get("formats") or {}).items():
            if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
                raise PluginConfigError(
                    f"storage plugin '{name}': format '{fmt}' must be an object with a 'type'"
                )

    def workspaces(self) -> dict[str, dict[str, Any]]:
        """Each workspace with Drill's defaults filled in."""
        return {
            str(ws): {key: spec.get(key, default) for key, (_, default) in WORKSPACE_FIELDS.items()}
            for ws, spec in (self.raw.get("workspaces") or {}).items()
        }

    @property
    def local(self) -> bool:
        """Whether the file system is this machine's (`file:`)."""
        return str(self.get("connection")).startswith("file:")
