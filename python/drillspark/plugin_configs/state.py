"""Where plugin configurations come from and are kept: Drill's bootstrap / override file
(`{"storage": {NAME: CONFIG}}`, JSON or the HOCON subset Drill's examples use: unquoted names,
`#` and `//` comments, no outer braces) and the server's state folder (`storage-plugins.json`, written whole
into a new file of its own, mode 0600 as it holds secrets, then renamed into place)."""

from __future__ import annotations

import json
import os
import secrets
from typing import Any

from drillspark.plugin_configs.base import PluginConfigError

STATE_FILE = "storage-plugins.json"


def read_bootstrap(path: str) -> dict[str, Any]:
    """{NAME: CONFIG} of a bootstrap or override file."""
    from drillspark.plan.relaxed_json import loads

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise PluginConfigError(f"cannot read the storage file {path}: {e.strerror}") from None
    # HOCON's `#` comments, on lines of their own (the reader takes `//` and `/* */`)
    text = "\n".join("" if ln.lstrip().startswith("#") else ln for ln in text.split("\n"))
    body = text.strip()
    if not body.startswith("{"):  # HOCON's root object may go without braces
        text = "{\n" + text + "\n}"
    try:
        value = loads(text).value
    except Exception as e:  # noqa: BLE001 - the reader's own message locates the error
        raise PluginConfigError(f"storage file {path}: {e}") from None
    storage = value.get("storage") if isinstance(value, dict) else None
    if not isinstance(storage, dict):
        raise PluginConfigError(f'storage file {path}: expected {{"storage": {{NAME: CONFIG}}}}')
    return storage


class PluginState:
    """The plugin configurations a server keeps in its state folder."""

    def __init__(self, folder: str):
        self.folder = folder
        self.path = os.path.join(folder, STATE_FILE)

    def load(self) -> dict[str, Any]:
        try:
            with open(self.path, encoding="utf-8") as f:
                value = json.load(f)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise PluginConfigError(
                f"cannot read the server's storage state {self.path}: {e}"
            ) from None
        return value if isinstance(value, dict) else {}

    def save(self, configs: dict[str, Any]) -> None:
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        tmp = os.path.join(self.folder, f".{STATE_FILE}.{secrets.token_hex(8)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(configs, f, indent=2, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
