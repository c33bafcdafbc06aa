"""Builds the extension jar into the wheel (see tools/build_jar.py); everything else is in
pyproject.toml."""

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildPyWithJar(build_py):
    def run(self):
        sys.path.insert(0, str(ROOT / "tools"))
        import build_jar

        build_jar.build()
        super().run()


setup(cmdclass={"build_py": BuildPyWithJar})
