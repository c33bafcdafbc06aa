"""The wheel carries the jar: built here, installed into a brand-new virtual environment, and
`drillspark.session()` there has the extension's functions."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import drillspark

# starts Spark in a subprocess: not in the unit tier (tests/conftest.py)
pytestmark = pytest.mark.spark_process

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.deploy
@pytest.mark.slow
def test_wheel_installs_elsewhere_with_its_jar(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(dist),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    (wheel,) = dist.glob("drillspark-*.whl")
    jar_name = f"drillspark/jars/drillspark-extension_2.13-{drillspark.__version__}.jar"
    names = zipfile.ZipFile(wheel).namelist()
    assert jar_name in names
    # test and benchmark code stays in the repository (tests/, jvm/src/bench)
    assert not [n for n in names if "conformance" in n or "bench" in n.lower()]
    with zipfile.ZipFile(ROOT / "python" / jar_name) as jar:
        assert not [n for n in jar.namelist() if "Bench" in n or "TokenScan" in n]
        # the rule tables both sides read: in the wheel for Python, in the jar for the JVM
        assert "drillspark/rules/json_options.tsv" in jar.namelist()
    assert "drillspark/rules/json_options.tsv" in names

    # The new environment must not see this checkout (PYTHONPATH would make pip think
    # drillspark is already installed) nor this interpreter's Spark settings.
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")
    }
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    install = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    check = (
        "import drillspark, pathlib;"
        "s = drillspark.session('local[1]', **{'spark.ui.enabled': 'false'});"
        "print('JAR', pathlib.Path(drillspark.jar_path()).is_relative_to(pathlib.Path(drillspark.__file__).parent));"
        "print('RESULT', s.sql('SELECT drill_version()').first()[0]); s.stop()"
    )
    proc = subprocess.run(
        [str(py), "-c", check], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "JAR True" in proc.stdout
    assert f"RESULT {drillspark.__version__}" in proc.stdout
