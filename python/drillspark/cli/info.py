"""`drillspark version` and `drillspark jar-path`: facts about this installation."""

from __future__ import annotations

import argparse

from drillspark._version import __version__
from drillspark.session import jar_path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("version", help="print drillspark's version")
    p.set_defaults(func=lambda args: print(__version__))
    p = sub.add_parser("jar-path", help="print the path of the bundled extension jar "
                       "(for spark-submit --jars / pyspark --jars)")
    p.set_defaults(func=lambda args: print(jar_path()))
