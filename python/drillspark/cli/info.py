"""`drillspark version`, `drillspark jar-path` and `drillspark spark-conf`: facts about this
installation, and the flags that give another Spark application all of drillspark."""

from __future__ import annotations

import argparse

from drillspark._version import __version__
from drillspark.session import EXTENSIONS_CLASS, catalog_confs, jar_path, spark_jars


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("version", help="print drillspark's version")
    p.set_defaults(func=lambda args: print(__version__))
    p = sub.add_parser(
        "jar-path",
        help="print the path of the bundled extension jar "
        "(for spark-submit --jars / pyspark --jars)",
    )
    p.set_defaults(func=lambda args: print(jar_path()))
    p = sub.add_parser(
        "spark-conf",
        help="print the --jars and --conf flags that give "
        "pyspark / spark-submit drillspark's extension and dfs catalog",
    )
    p.add_argument(
        "--format",
        choices=["flags", "properties"],
        default="flags",
        help="flags for the command line (default) or lines for spark-defaults.conf",
    )
    p.set_defaults(func=print_spark_conf)


def spark_conf() -> dict[str, str]:
    """Every setting `drillspark.configure(builder)` makes, for applications started by
    pyspark or spark-submit (the jar alone brings the functions, not the `dfs` catalog)."""
    jars = ",".join(spark_jars())  # the extension, then the JDBC drivers
    return {"spark.jars": jars, "spark.sql.extensions": EXTENSIONS_CLASS, **catalog_confs()}


def print_spark_conf(args: argparse.Namespace) -> None:
    import shlex

    conf = spark_conf()
    if args.format == "properties":
        for key, value in conf.items():
            print(f"{key} {value}")
        return
    flags = ["--jars", conf.pop("spark.jars")]
    for key, value in conf.items():
        flags += ["--conf", f"{key}={value}"]
    print(" ".join(shlex.quote(f) for f in flags))
