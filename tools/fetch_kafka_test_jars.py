"""Fetch the jars of a Kafka broker for the `kafka` storage plugin's tests (the long tier,
tests/storage/test_kafka_plugin.py): Apache Kafka 4.4.0 (org.apache.kafka:kafka_2.13 with
kafka-server, kafka-raft, kafka-metadata, kafka-storage, the coordinators and kafka-clients) and
what they need at run time (`mvn dependency:copy-dependencies` of kafka_2.13, runtime scope: 44
jars, 43 MB; Apache License 2.0 and compatible), from Maven Central, each checked against its
SHA-1 (pinned here; the `.sha1` Maven Central publishes next to it must agree), into
tests/storage/jars/kafka/ (git-ignored). The broker runs in KRaft mode in a JVM of its own
(tests/storage/kafka_server.py), never in drillspark's: the product reads through
kafka-clients alone (tools/fetch_client_jars.py). Other jars in the folder are removed (it is
this tool's alone). The download, checksum and local-repository code is tools/pinned_jars.py's.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pinned_jars as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "tests" / "storage" / "jars" / "kafka"

# sha1 group:artifact:version
JARS = maven.pinned(
    """
3fe7cb28a7102752d77c3aa4e309ea76efe85def at.yawk.lz4:lz4-java:1.11.2
2d61bfb5b38469cb76141b06dc68d36a9007e9ad com.dynatrace.hash4j:hash4j:0.22.0
b1bc1868bf02dc0bd6c7836257a036a331005309 com.fasterxml.jackson.core:jackson-annotations:2.21
5abfb904683e642f4a5458f2a78ab9308c7c5a46 com.fasterxml.jackson.core:jackson-core:2.21.7
a2ebbc72e3092323f0f3defa786ff3bb0c47218c com.fasterxml.jackson.core:jackson-databind:2.21.7
cd755d8f2c860e887301b47140f60ab58b3eb538 com.fasterxml.jackson.dataformat:jackson-dataformat-yaml:2.21.7
83f1c3c394b531496917e86e886aa00ac5cecc63 com.fasterxml.jackson.datatype:jackson-datatype-jdk8:2.21.7
35eba09997476a39492ac7f7b2bb0e8292c09d17 com.github.ben-manes.caffeine:caffeine:3.2.0
b4fea046fcd925681fa10c61be99da059f4f745a com.github.luben:zstd-jni:1.5.7-17
12c25e923e9e4fb1575a7640a2698745c6f19a94 com.google.re2j:re2j:1.8
f887ff84d87e3e9c89e28f8a4064bf74d1eacbb4 com.typesafe.scala-logging:scala-logging_2.13:3.9.6
f82c035cfa786d3cbec362c38c22a5f5b1bc8724 com.yammer.metrics:metrics-core:2.2.0
ac03ea606d13de04c2e4508227680faff151f491 commons-beanutils:commons-beanutils:1.11.0
8ad72fe39fa8c91eaaf12aadb21e0c3661fe26d5 commons-collections:commons-collections:3.2.2
73a8001e7a54a255eef0f03521ec1805dc738ca0 commons-digester:commons-digester:2.1
a3fcc5d3c29b2b03433aa2d2f2d2c1b1638924a1 commons-logging:commons-logging:1.3.5
cdf5c2a69aad509c4db54786f19f1e1ccc471bcf commons-validator:commons-validator:1.10.1
4fdac2fbe92dfad86aa6e9301736f6b4342a3f5c net.sf.jopt-simple:jopt-simple:5.0.4
6f0621d0c3888de39e0f06d01f37ba53a798e657 net.sourceforge.argparse4j:argparse4j:0.7.0
1d2ebc2a3f0ecce03faa288c42d4e8f998aac47d org.apache.kafka:kafka-clients:4.4.0
531d4e04ea04d79decd585ca7930f57757554ca5 org.apache.kafka:kafka-coordinator-common:4.4.0
5159f9226c8930035cdd5140b6a24df25a588061 org.apache.kafka:kafka-group-coordinator-api:4.4.0
07dfc73a2de9499589557071cbd595f6e14694eb org.apache.kafka:kafka-group-coordinator:4.4.0
5ade78a65abb3870b33f669a5a0b449de52093a2 org.apache.kafka:kafka-metadata:4.4.0
a8da7a1d71c6b4ad3f96cdb3af977df216d595df org.apache.kafka:kafka-raft:4.4.0
f6125385dd7c41b0a20a75f240666e495158e235 org.apache.kafka:kafka-server-common:4.4.0
3a8174850ed33c7669841fad1795b79c1d205bf5 org.apache.kafka:kafka-server:4.4.0
3e4b92a3a179eb435f3807b567a83611b4eb0baf org.apache.kafka:kafka-share-coordinator:4.4.0
536348c3f5face8e0788b9e47b6f2337899194be org.apache.kafka:kafka-storage-api:4.4.0
b215580ff932405e06e55969d16b63a37c2d2ff2 org.apache.kafka:kafka-storage:4.4.0
4e9326543b4c45cb5db9178aa25cb91fb05685cf org.apache.kafka:kafka-tools-api:4.4.0
32fc9c405002f44bc06eb266df42fa82dde13823 org.apache.kafka:kafka-transaction-coordinator:4.4.0
2e194c128f7bd43bef49f5647be34d680f6a6474 org.apache.kafka:kafka_2.13:4.4.0
6c80ea65e41f7858f7e15cb390c98c36167c7b3a org.apache.logging.log4j:log4j-api:2.25.5
c194a13e18b0a36014e867d2d323b989bf212151 org.apache.logging.log4j:log4j-core:2.25.5
357a3836bb5da16f314f3a1e954518e5468cd915 org.bitbucket.b_c:jose4j:0.9.6
7959933ebcc0f05b2eaa5af0a0c8689fa257b15c org.hdrhistogram:HdrHistogram:2.2.2
7425a601c1c7ec76645a78d22b8c6a627edee507 org.jspecify:jspecify:1.0.0
c8398b4443deae11e6eaffbc04a371b4eb8f6b8e org.pcollections:pcollections:4.0.2
eb2086988c25b08705472cc750654570900362e5 org.scala-lang:scala-library:2.13.18
674f3bd39f5c528d575da69c42a5dff772b9b75c org.scala-lang:scala-reflect:2.13.18
6c62681a2f655b49963a5983b8b0950a6120ae14 org.slf4j:slf4j-api:1.7.36
3049f95640f4625a945cfab85715f603fa4c8f80 org.xerial.snappy:snappy-java:1.1.10.7
2d53ddec134280cb384c1e35d094e5f71c1f2316 org.yaml:snakeyaml:2.5
"""
)

FOLDER = maven.JarFolder("fetch_kafka_test_jars", __doc__, DEST, JARS, owns_folder=True)
is_current, fetch, main = FOLDER.is_current, FOLDER.fetch, FOLDER.main


if __name__ == "__main__":
    sys.exit(main())
