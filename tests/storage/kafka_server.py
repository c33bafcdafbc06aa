"""A real Kafka broker for the `kafka` plugin's tests: Apache Kafka 4.4.0 in KRaft mode (one
process that is broker and controller), from the Maven Central jars `make setup` fetches into
tests/storage/jars/kafka/ (tools/fetch_kafka_test_jars.py), on free loopback ports with its log
folder in a temporary folder, stopped by its process id. Messages are produced by
KafkaProduce.java (beside this file) with the same jars: the broker's own Java client."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tests.storage.listening import wait_listening

HERE = Path(__file__).resolve().parent
JARS = HERE / "jars" / "kafka"
PRODUCER = HERE / "KafkaProduce.java"
START_TIMEOUT = 90  # seconds; about 8 s on an idle 2-core machine


def missing() -> str | None:
    if not (JARS / ".fetched").is_file():
        return f"the Kafka broker's jars are not fetched ({JARS}); `make setup` fetches them"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _classpath() -> str:
    return str(JARS / "*")


class KafkaBroker:
    """One KRaft broker+controller on 127.0.0.1 (`bootstrap`: its PLAINTEXT listener)."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port, controller = _free_port(), _free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        props = folder / "server.properties"
        props.write_text(
            "\n".join(
                [
                    "process.roles=broker,controller",
                    "node.id=1",
                    f"controller.quorum.voters=1@127.0.0.1:{controller}",
                    f"listeners=PLAINTEXT://127.0.0.1:{self.port},"
                    f"CONTROLLER://127.0.0.1:{controller}",
                    f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
                    "controller.listener.names=CONTROLLER",
                    "inter.broker.listener.name=PLAINTEXT",
                    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                    f"log.dirs={folder / 'logs'}",
                    "num.partitions=1",
                    "offsets.topic.replication.factor=1",
                    "offsets.topic.num.partitions=1",
                    "transaction.state.log.replication.factor=1",
                    "transaction.state.log.min.isr=1",
                    "share.coordinator.state.topic.replication.factor=1",
                    "share.coordinator.state.topic.min.isr=1",
                    "group.initial.rebalance.delay.ms=0",
                    "auto.create.topics.enable=false",
                    # the tests' messages carry fixed (old) timestamps: keep them all
                    "log.retention.ms=-1",
                    "",
                ]
            )
        )
        java = ["java", "-Xmx512m", "-XX:+UseSerialGC", "-cp", _classpath()]
        self.log = open(folder / "kafka.log", "wb")  # noqa: SIM115  (closed in stop)
        subprocess.run(
            [*java, "kafka.tools.StorageTool", "format", "-t", _cluster_id(), "-c", str(props)],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            check=True,
            timeout=START_TIMEOUT,
        )
        self.proc = subprocess.Popen(
            [*java, "kafka.Kafka", str(props)], stdout=self.log, stderr=subprocess.STDOUT
        )
        wait_listening(
            self.proc, self.port, "the Kafka broker", folder / "kafka.log", START_TIMEOUT, self.stop
        )

    def produce(self, topics: Mapping[str, tuple[int, Iterable[Mapping[str, Any]]]]) -> None:
        """Create each topic with its number of partitions and send its messages, each
        {"value": TEXT, "partition": N, "key": TEXT or None, "timestamp": MS} (all but value
        optional), in order, all acknowledged before it returns: one JVM for them all."""
        lines = "".join(
            json.dumps({"topic": t, "partitions": n})
            + "\n"
            + "".join(json.dumps({"topic": t, **m}) + "\n" for m in messages)
            for t, (n, messages) in topics.items()
        )
        done = subprocess.run(
            ["java", "-Xmx256m", "-cp", _classpath(), str(PRODUCER), self.bootstrap],
            input=lines.encode(),
            capture_output=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"producing to {list(topics)} failed: {done.stderr.decode()[-2000:]}"
            )

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def _cluster_id() -> str:
    """A KRaft cluster id: 16 random bytes in URL-safe base64 without padding, not starting
    with '-' (StorageTool's argument parser takes `-t -FZn...` for an option: one id in 64
    failed the long tier's Kafka fixture; Kafka's own random ids skip those too)."""
    import base64

    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


if __name__ == "__main__":  # run one by hand: python tests/storage/kafka_server.py DIR
    import sys

    t0 = time.monotonic()
    broker = KafkaBroker(Path(sys.argv[1]))
    print(broker.bootstrap, broker.proc.pid, f"{time.monotonic() - t0:.1f} s", flush=True)
    try:
        broker.proc.wait()
    except KeyboardInterrupt:
        broker.stop()
