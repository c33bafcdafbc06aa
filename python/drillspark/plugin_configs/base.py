"""What every plugin configuration is: Drill's JSON object of one storage plugin, typed by its
`type`, with `enabled`, the fields its type knows (checked), and every other field kept as given
(so a round trip through drillspark loses nothing Drill or a newer Drill wrote)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from drillspark.errors import UsageError

# what a secret shows as outside (REST, the console, logs); sent back unchanged, it keeps the
# secret already stored
MASK = "*****"


def enabled(config: Mapping[str, Any]) -> bool:
    """Whether a plugin's config (Drill's JSON, whole or partial) is enabled, the one rule every
    door reads (drillspark.sql's session, the Spark catalogs): `enabled` absent (Drill's
    default) or anything but false (a partial config may carry the string "false")."""
    return config.get("enabled", True) not in (False, "false")


class PluginConfigError(UsageError, ValueError):
    """A plugin configuration that cannot be taken; the message names the plugin and field."""


@dataclass
class PluginConfig:
    """One plugin's configuration. `raw` is Drill's JSON object, whole."""

    raw: dict[str, Any] = field(default_factory=dict)

    TYPE: ClassVar[str] = ""
    # the fields this type knows: name -> (Python types allowed, Drill's default)
    FIELDS: ClassVar[Mapping[str, tuple[tuple[type, ...], Any]]] = {}
    # paths of secret values: ("password",), ("credentialsProvider", "credentials", "password")
    SECRETS: ClassVar[tuple[tuple[str, ...], ...]] = ()
    # whether drillspark can query a plugin of this type
    QUERYABLE: ClassVar[bool] = True
    # the plugins of this type Drill 1.22 ships, disabled, as templates to fill in and enable
    # (its bootstrap-storage-plugins.json files): name -> config
    DRILL_SHIPS: ClassVar[Mapping[str, Mapping[str, Any]]] = {}

    @classmethod
    def from_json(cls, name: str, raw: Mapping[str, Any]) -> PluginConfig:
        """The configuration of plugin `name`, its fields checked."""
        config = cls(copy.deepcopy(dict(raw)))
        for key, (kinds, _default) in cls.FIELDS.items():
            value = config.raw.get(key)
            if value is not None and not _fits(value, kinds):
                wanted = " or ".join(_kind_name(k) for k in kinds)
                raise PluginConfigError(
                    f"storage plugin '{name}' ({config.type}): field '{key}' must be {wanted}, "
                    f"not {_kind_name(type(value))}"
                )
        enabled = config.raw.get("enabled")
        if enabled is not None and not isinstance(enabled, bool):
            raise PluginConfigError(f"storage plugin '{name}': field 'enabled' must be a boolean")
        config.check(name)
        return config

    def check(self, name: str) -> None:
        """Checks of a type beyond its fields' kinds (a subclass adds them)."""

    @property
    def type(self) -> str:
        return str(self.raw.get("type", self.TYPE))

    @property
    def enabled(self) -> bool:
        return enabled(self.raw)

    def get(self, key: str) -> Any:
        """A field's value, else Drill's default for it."""
        if key in self.raw and self.raw[key] is not None:
            return self.raw[key]
        return self.FIELDS.get(key, ((), None))[1]

    def with_enabled(self, enabled: bool) -> PluginConfig:
        return type(self)({**copy.deepcopy(self.raw), "enabled": enabled})

    def to_json(self, masked: bool = True) -> dict[str, Any]:
        """Drill's JSON as its REST API shows it (`enabled` only when true, as Drill 1.22);
        with `masked`, every secret set shows as MASK."""
        out = copy.deepcopy(self.raw)
        if self.enabled:
            out["enabled"] = True
        else:
            out.pop("enabled", None)
        if masked:
            for path in self.SECRETS:
                _mask(out, path)
        return out

    def keeping_secrets_of(self, old: PluginConfig | None) -> PluginConfig:
        """This configuration where a secret reads MASK (a client sent back what it was
        shown): the old configuration's secret."""
        if old is None:
            return self
        raw = copy.deepcopy(self.raw)
        for path in self.SECRETS:
            if _get(raw, path) == MASK:
                value = _get(old.raw, path)
                if value is not None:
                    _set(raw, path, value)
        return type(self)(raw)

    def secrets(self) -> list[str]:
        """The secret values set (to keep them out of messages)."""
        found = [_get(self.raw, path) for path in self.SECRETS]
        return [v for v in found if isinstance(v, str) and v and v != MASK]


def _fits(value: Any, kinds: tuple[type, ...]) -> bool:
    """Whether `value` is of one of `kinds`, as Drill's JSON reader (Jackson) takes it: a
    boolean or a number may also be given as its text ("true", "500")."""
    if isinstance(value, bool):
        return bool in kinds
    if isinstance(value, kinds):
        return True
    if isinstance(value, str):
        text = value.strip().lower()
        return (bool in kinds and text in ("true", "false")) or (
            int in kinds and text.lstrip("+-").isdigit()
        )
    return False


def _kind_name(kind: type) -> str:
    return {
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        dict: "an object",
        list: "an array",
    }.get(kind, kind.__name__)


def _get(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _set(obj: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        obj = obj.setdefault(key, {})
    obj[path[-1]] = value


def _mask(obj: dict[str, Any], path: tuple[str, ...]) -> None:
    value = _get(obj, path)
    if isinstance(value, str) and value:
        _set(obj, path, MASK)


def merge(old: Mapping[str, Any], partial: Mapping[str, Any]) -> dict[str, Any]:
    """A partial configuration (no `type`) merged into an existing one: objects merge by key
    (`formats`, `workspaces`, `config`), other values replace."""
    out = copy.deepcopy(dict(old))
    for key, value in partial.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out
