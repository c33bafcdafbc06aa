"""Loads the plugin example of docs/operators.md as a module, exactly as written there."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "operators.md"
MODULE = "drillspark_docs_example"


def example_source() -> str:
    text = DOC.read_text()
    marker = text.index("<!-- example: plugin")
    block = re.search(r"```python\n(.*?)```", text[marker:], re.S)
    assert block, "docs/operators.md lost its plugin example"
    return block.group(1)


def load() -> types.ModuleType:
    """The example as module `drillspark_docs_example` (registers its operator and functions)."""
    if MODULE in sys.modules:
        return sys.modules[MODULE]
    module = types.ModuleType(MODULE)
    sys.modules[MODULE] = module  # before exec: classes look their module up
    exec(compile(example_source(), str(DOC), "exec"), module.__dict__)
    return module
