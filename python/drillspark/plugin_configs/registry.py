"""The plugin types drillspark knows (the one table to extend: a type is a module and a line
here) and the named plugins of a server or session."""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any

from drillspark.plugin_configs.base import PluginConfig, PluginConfigError, merge
from drillspark.plugin_configs.file import FileConfig
from drillspark.plugin_configs.http import HttpConfig
from drillspark.plugin_configs.jdbc import JdbcConfig
from drillspark.plugin_configs.kafka import KafkaConfig
from drillspark.plugin_configs.mongo import MongoConfig
from drillspark.plugin_configs.state import PluginState
from drillspark.plugin_configs.unsupported import UnsupportedConfig

# Drill's `type` -> its configuration class; any other type is stored as UnsupportedConfig
TYPES: dict[str, type[PluginConfig]] = {
    FileConfig.TYPE: FileConfig,
    JdbcConfig.TYPE: JdbcConfig,
    HttpConfig.TYPE: HttpConfig,
    MongoConfig.TYPE: MongoConfig,
    KafkaConfig.TYPE: KafkaConfig,
}
# a plugin's name is a schema name: no dot, slash, backquote or control character
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_$-]{0,127}")


def config_from_json(name: str, raw: Any) -> PluginConfig:
    """Plugin `name`'s configuration from Drill's JSON object (PluginConfigError if it cannot
    be taken, naming the plugin and field)."""
    if not isinstance(raw, Mapping):
        raise PluginConfigError(f"storage plugin '{name}': the configuration must be an object")
    kind = raw.get("type")
    if not isinstance(kind, str) or not kind:
        raise PluginConfigError(f"storage plugin '{name}': the configuration has no 'type'")
    return TYPES.get(kind, UnsupportedConfig).from_json(name, raw)


def check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise PluginConfigError(
            f"invalid storage plugin name {name!r}: letters, digits, '_', '-' and '$' only"
        )
    return name


def drill_ships() -> dict[str, dict[str, Any]]:
    """The disabled plugins Drill 1.22 ships beside `cp` and `dfs` (`s3`, `mongo`, `http`,
    `kafka`), each from its type's module: listed, to be filled in and enabled."""
    out: dict[str, dict[str, Any]] = {}
    kinds: list[type[PluginConfig]] = [*TYPES.values(), UnsupportedConfig]
    for kind in kinds:
        out.update({n: copy.deepcopy(dict(c)) for n, c in kind.DRILL_SHIPS.items()})
    return out


def supported_types() -> str:
    return ", ".join(sorted(TYPES))


class StoragePlugins:
    """Named plugin configurations (thread-safe). `fixed` names cannot be deleted (drillspark
    builds them in: `cp`, `dfs`); a `state` keeps across restarts the plugins it held and
    those changed since (by REST, the console: not what an operator's start-up gave, which
    the next start gives again, or not); `on_change` hears of each change (the server derives
    its workspaces from `dfs`)."""

    def __init__(
        self,
        plugins: Mapping[str, PluginConfig],
        fixed: tuple[str, ...] = (),
        state: PluginState | None = None,
    ):
        self._lock = threading.Lock()
        self._plugins: dict[str, PluginConfig] = dict(plugins)
        self.fixed = fixed
        self.state = state
        self.on_change: Callable[[str, PluginConfig | None], None] | None = None
        self._kept: set[str] = set()  # the names the state keeps
        if state is not None:
            for name, raw in state.load().items():
                self._plugins[name] = config_from_json(name, raw)
                self._kept.add(name)

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._plugins)

    def get(self, name: str) -> PluginConfig | None:
        with self._lock:
            return self._plugins.get(name)

    def put(
        self, name: str, raw: Any, check: Callable[[PluginConfig], None] | None = None
    ) -> PluginConfig:
        """Create or replace plugin `name` from Drill's JSON (REST's POST). A configuration
        without `type` changes the fields it gives of the existing plugin, each replaced whole
        (`{"workspaces": {...}}` sets the workspaces). A secret sent back as shown (masked)
        keeps the stored one. `check` may refuse the new configuration (it raises); nothing
        changes then."""
        check_name(name)
        with self._lock:
            old = self._plugins.get(name)
            if isinstance(raw, Mapping) and "type" not in raw and old is not None:
                raw = {**old.raw, **raw}
            elif isinstance(raw, Mapping) and "enabled" not in raw and old is not None:
                # a disabled plugin is shown without `enabled` (as Drill shows it): posted
                # back as shown, it stays as it was
                raw = {**raw, "enabled": old.enabled}
            config = config_from_json(name, raw).keeping_secrets_of(old)
            if check is not None:
                check(config)
            self._plugins[name] = config
            self._kept.add(name)
            self._save()
        self._changed(name, config)
        return config

    def apply(self, configs: Mapping[str, Any], keep: bool = True) -> None:
        """Several plugins at once ({NAME: CONFIG}), as a bootstrap file or a session gives
        them: all or none. A configuration without `type` merges into the plugin of that name,
        objects by key (`{"formats": {...}}` adds formats). `keep=False`: an operator's
        start-up settings, which the state does not keep (a plugin it already keeps is saved
        with them)."""
        if not isinstance(configs, Mapping):
            raise PluginConfigError('expected {"NAME": {"type": ...}, ...}')
        with self._lock:
            staged = dict(self._plugins)
            for name, raw in configs.items():
                check_name(name)
                old = staged.get(name)
                if isinstance(raw, Mapping) and "type" not in raw and old is not None:
                    raw = merge(old.raw, raw)
                staged[name] = config_from_json(name, raw).keeping_secrets_of(old)
            self._plugins = staged
            if keep:
                self._kept.update(configs)
                self._save()
        for name in configs:
            self._changed(name, staged[name])

    def delete(self, name: str) -> bool:
        if name in self.fixed:
            raise PluginConfigError(
                f"the {name} plugin cannot be deleted (drillspark builds it in; "
                f"/storage/{name}/enable/false disables it)"
            )
        with self._lock:
            if self._plugins.pop(name, None) is None:
                return False
            self._kept.discard(name)
            self._save()
        self._changed(name, None)
        return True

    def set_enabled(self, name: str, enabled: bool) -> None:
        with self._lock:
            if name not in self._plugins:
                raise KeyError(name)
            config = self._plugins[name] = self._plugins[name].with_enabled(enabled)
            self._kept.add(name)
            self._save()
        self._changed(name, config)

    def _save(self) -> None:  # under the lock
        if self.state is not None:
            self.state.save({n: c.raw for n, c in self._plugins.items() if n in self._kept})

    def _changed(self, name: str, config: PluginConfig | None) -> None:
        if self.on_change is not None:
            self.on_change(name, config)
