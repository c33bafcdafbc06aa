"""Drill's boot settings (drill-override.conf: fixed when a Drillbit starts, never set by SQL)
that a drillspark server answers in `sys.boot`, each standing for the `drillspark serve` flag
that decides it. Declared here, beside the options, so the option namespaces have one owner."""

from __future__ import annotations

HTTP_ENABLED = "drill.exec.http.enabled"
HTTP_BIND_ADDR = "drill.exec.http.bind_addr"  # --host
HTTP_PORT = "drill.exec.http.port"  # --port
HTTP_SSL_ENABLED = "drill.exec.http.ssl_enabled"
HTTP_SESSION_MAX_IDLE_SECS = "drill.exec.http.session_max_idle_secs"  # --session-idle
USER_AUTH_ENABLED = "drill.exec.security.user.auth.enabled"  # --users
USER_SERVER_PORT = "drill.exec.rpc.user.server.port"  # --user-port
PROFILES_STORE_CAPACITY = "drill.exec.profiles.store.capacity"
# CREATE TEMPORARY TABLE's workspace (`dfs.tmp` unless set): the Spark setting below decides it
DEFAULT_TEMPORARY_WORKSPACE = "drill.exec.default_temporary_workspace"
TEMPORARY_WORKSPACE_CONF = "spark.drillspark.defaultTemporaryWorkspace"
