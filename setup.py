"""Builds the extension jar into the wheel (see tools/build_jar.py) and puts Drill's sample data
for `cp` (tools/fetch_cp_data.py) and the `jdbc` plugin's JDBC drivers
(tools/fetch_jdbc_drivers.py) beside it; everything else is in pyproject.toml."""

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# Drill's FoodMart JSON files and their license (python/drillspark/cp/, git-ignored): package
# data of the wheel, added here because pyproject.toml's package-data replaces setup()'s own
CP_DATA = ["cp/*.json", "cp/META-INF/LICENSE", "cp/META-INF/NOTICE"]
# PostgreSQL's JDBC driver and MariaDB Connector/J (python/drillspark/jars/drivers/, git-ignored)
DRIVERS = ["jars/drivers/*.jar"]
# the format readers' libraries (Apache POI, ...; jars/formats/, git-ignored; build_jar fetches them)
FORMATS = ["jars/formats/*.jar"]
# hadoop-aws and the AWS SDK parts it uses, for s3a:// file plugins (jars/hadoop/, git-ignored)
HADOOP = ["jars/hadoop/*.jar"]
# the MongoDB Java driver for the `mongo` plugin (jars/clients/, git-ignored)
CLIENTS = ["jars/clients/*.jar"]


class BuildPyWithJar(build_py):
    def finalize_options(self):
        super().finalize_options()
        patterns = self.package_data.setdefault("drillspark", [])
        patterns.extend(
            p for p in CP_DATA + DRIVERS + FORMATS + HADOOP + CLIENTS if p not in patterns
        )

    def run(self):
        sys.path.insert(0, str(ROOT / "tools"))
        import build_jar
        import fetch_client_jars
        import fetch_cp_data
        import fetch_hadoop_jars
        import fetch_jdbc_drivers

        build_jar.build()
        try:
            fetch_cp_data.fetch()
        except fetch_cp_data.FetchError as e:
            sys.exit(f"drillspark: Drill's sample data for cp could not be fetched: {e}")
        try:
            fetch_jdbc_drivers.fetch()
        except fetch_jdbc_drivers.FetchError as e:
            sys.exit(f"drillspark: the JDBC drivers could not be fetched: {e}")
        try:
            fetch_hadoop_jars.fetch()
        except fetch_hadoop_jars.FetchError as e:
            sys.exit(f"drillspark: hadoop-aws and the AWS SDK could not be fetched: {e}")
        try:
            fetch_client_jars.fetch()
        except fetch_cp_data.FetchError as e:
            sys.exit(f"drillspark: the MongoDB Java driver could not be fetched: {e}")
        super().run()


setup(cmdclass={"build_py": BuildPyWithJar})
