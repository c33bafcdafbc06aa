"""The storage plugins Drill's bootstrap configuration defines by name (its
bootstrap-storage-plugins.json and drill-module.conf): the one place those names are spelled.
Everything else asks here (or a session, which may be given others) which plugin plays which
part, never names `dfs` or `cp` itself (tests/foundation/test_plugin_names.py)."""

from __future__ import annotations

# Drill's `file` plugin on the local file system, whose workspaces (`root`, `tmp`, ...) a
# session holds as its own
FILE_PLUGIN = "dfs"
# Drill's `file` plugin over its classpath (the sample data: `cp.`employee.json``)
CLASSPATH_PLUGIN = "cp"
CLASSPATH_CONNECTION = "classpath:///"
# the plugins drillspark builds in (they cannot be deleted, only disabled)
BUILT_IN = (CLASSPATH_PLUGIN, FILE_PLUGIN)
# the workspaces of `dfs` unless configured: `root` (Drill's is `/`; drillspark's, the current
# directory), the plugin's default, and `tmp`, the one writable
ROOT_WORKSPACE = "root"
TMP_WORKSPACE = "tmp"
TMP_LOCATION = "/tmp"
WRITABLE_WORKSPACES = (TMP_WORKSPACE,)
# Drill's drill.exec.default_temporary_workspace unless set: where CREATE TEMPORARY TABLE writes
DEFAULT_TEMPORARY_WORKSPACE = f"{FILE_PLUGIN}.{TMP_WORKSPACE}"
