"""Drill's storage-plugin configurations: one module per plugin type (its fields with Drill's
names and defaults, its secrets), the registry of types and of named plugins, and where the
configurations come from and are kept (Drill's bootstrap/override file, the server's state).
Nothing here reads data: the Spark side (spark/storage/) does, from these configurations."""

from drillspark.plugin_configs.base import PluginConfig, PluginConfigError, enabled
from drillspark.plugin_configs.registry import StoragePlugins, config_from_json

__all__ = ["PluginConfig", "PluginConfigError", "StoragePlugins", "config_from_json", "enabled"]
