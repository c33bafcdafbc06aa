"""Options several subcommands share: `--workspace NAME=PATH` and `--conf KEY=VALUE`."""

from __future__ import annotations

from pathlib import Path


def workspaces(items: list[str]) -> dict[str, str]:
    """`--workspace NAME=PATH` items as name -> absolute folder (each must be a folder)."""
    from drillspark.cli.main import CliError

    out = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise CliError(f"--workspace takes NAME=PATH, not {item!r}", code=2)
        folder = Path(path).expanduser().resolve()
        if not folder.is_dir():
            raise CliError(f"workspace {name}: {folder} is not a folder", code=2)
        out[name] = str(folder)
    return out


def spark_conf(items: list[str]) -> dict[str, str]:
    """`--conf KEY=VALUE` items as a dict of Spark settings."""
    from drillspark.cli.main import CliError

    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CliError(f"--conf takes KEY=VALUE, not {item!r}", code=2)
        out[key.strip()] = value.strip()
    return out
