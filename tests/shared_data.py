"""Where the tests find the shared data: `../shared` beside the repository, or
DRILLSPARK_SHARED. Real data written by others, read in place, never copied into the
repository. A plain module, so helpers can import it: importing `tests.conftest` would run the
conftest a second time under that name (and give the run a second runtime folder)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DRILLSPARK_SHARED", ROOT.parent / "shared")).resolve()
