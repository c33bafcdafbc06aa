"""The Python examples of README.md and docs/usage.md type-check: each document's ```python
blocks, in order, as one file, through mypy (with the project's settings, imports followed
silently), so the documented calls match the API's types."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ["README.md", "docs/usage.md", "docs/sql.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def snippets(document: str) -> str:
    blocks = BLOCK.findall((ROOT / document).read_text())
    assert blocks, f"{document} has no python examples"
    return "\n".join(blocks)


def test_the_documented_python_examples_type_check(tmp_path: Path):
    files = []
    for document in DOCUMENTS:
        path = tmp_path / (re.sub(r"\W", "_", document) + ".py")
        path.write_text(snippets(document))
        files.append(str(path))
    env = {**os.environ, "MYPYPATH": str(ROOT / "python")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--follow-imports=silent",
            "--cache-dir",
            str(ROOT / ".mypy_cache" / "snippets"),
            "--no-error-summary",
            *files,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_sees_drillspark_sql_as_a_function(tmp_path: Path):
    """Importing the drillspark.sql package must not turn the function into a module, for
    mypy (which once said `Module not callable`) nor at run time."""
    code = (
        "import drillspark\nimport drillspark.sql.engine\nfrom drillspark import sql\n"
        "r = drillspark.sql('SELECT 1')\nreveal_type(r)\nsql('SHOW SCHEMAS').show()\n"
    )
    (tmp_path / "calls.py").write_text(code)
    env = {**os.environ, "MYPYPATH": str(ROOT / "python")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--follow-imports=silent",
            "--cache-dir",
            str(ROOT / ".mypy_cache" / "snippets"),
            "calls.py",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "DrillResult | drillspark.result.StatementResult" in done.stdout

    import types

    import drillspark
    import drillspark.sql.engine  # noqa: F401 - binds the package, were it not kept out

    assert isinstance(drillspark.sql, types.FunctionType)
    assert "Run Drill SQL" in (drillspark.sql.__doc__ or "")


def test_help_of_drillspark_sql_is_short():
    import pydoc

    import drillspark

    text = pydoc.render_doc(drillspark.sql, renderer=pydoc.plaintext)
    assert text.splitlines()[2].startswith("sql(query")  # the signature comes first
    assert len(text.splitlines()) < 40
