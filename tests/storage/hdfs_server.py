"""A real HDFS for the `file` plugin's hdfs:// tests: Hadoop 3.5.0's MiniDFSCluster (a NameNode
and a DataNode) in a JVM of its own (tests/storage/MiniHdfs.java with the jars of
tools/fetch_hdfs_test_jars.py, `make setup`), on loopback ports, its data in a temporary
folder, stopped by its process id. Starting it takes 20-60 s: its tests are in the long tier."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
JARS = HERE / "jars" / "hdfs"


def missing() -> str | None:
    if shutil.which("java") is None:
        return "java is not on PATH"
    if not (JARS / ".fetched").is_file():
        return (
            f"MiniDFSCluster's jars are not in {JARS} (make setup: tools/fetch_hdfs_test_jars.py)"
        )
    return None


@dataclass
class HdfsServer:
    process: subprocess.Popen
    uri: str
    data: str

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.data, ignore_errors=True)


def start(timeout: float = 180) -> HdfsServer:
    data = tempfile.mkdtemp(prefix="drillspark-hdfs-")
    log = open(os.path.join(data, "minihdfs.log"), "w")  # noqa: SIM115  (the process's stderr)
    process = subprocess.Popen(
        ["java", "-Xmx512m", "-cp", str(JARS / "*"), str(HERE / "MiniHdfs.java"), data + "/dfs"],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    found: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("HDFS "):
                found.append(line.split()[1])
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout
    while not found:
        if process.poll() is not None or time.monotonic() > deadline:
            server = HdfsServer(process, "", data)
            tail = Path(data, "minihdfs.log").read_text(errors="replace")[-2000:]
            server.stop()
            raise RuntimeError(f"MiniDFSCluster did not start: {tail}")
        time.sleep(0.2)
    # the NameNode names itself `localhost`; the client connects to 127.0.0.1 all the same
    return HdfsServer(process, found[0].replace("//localhost:", "//127.0.0.1:"), data)
