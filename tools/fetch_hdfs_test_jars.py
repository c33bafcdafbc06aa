"""Fetch the jars of Hadoop's MiniDFSCluster for the `file` plugin's hdfs:// tests (the long
tier, tests/storage/test_hdfs_sql.py): hadoop-hdfs 3.5.0 with its test jar (MiniDFSCluster),
hadoop-common 3.5.0 with its test jar, hadoop-hdfs-client 3.5.0, and what they need at run time
(`mvn dependency:copy-dependencies`, runtime scope: 130 jars, 73 MB; Apache License 2.0 and
compatible), from Maven Central, each checked against its SHA-1 (pinned here; the `.sha1` Maven
Central publishes next to it must agree), into tests/storage/jars/hdfs/ (git-ignored). The
cluster runs in a JVM of its own (tests/storage/hdfs_server.py), never in drillspark's: the
product reads HDFS through pyspark's own hadoop-client 3.5.0. The download, checksum and
local-repository code is tools/fetch_cp_data.py's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_cp_data as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "tests" / "storage" / "jars" / "hdfs"
STAMP_NAME = ".fetched"


@dataclass(frozen=True)
class J(maven.PinnedJar):
    """A pinned jar, with Maven's classifier (`tests`: a module's test jar)."""

    classifier: str = ""

    @property
    def name(self) -> str:
        tail = f"-{self.classifier}" if self.classifier else ""
        return f"{self.artifact}-{self.version}{tail}.jar"


JARS = (
    J("ch.qos.reload4j", "reload4j", "1.2.22", "f9d9e55d1072d7a697d2bf06e1847e93635a7cf9"),
    J(
        "com.fasterxml.jackson.core",
        "jackson-annotations",
        "2.18.6",
        "d0d2f9e504c6fe443eb2785370c701f911fc87c6",
    ),
    J(
        "com.fasterxml.jackson.core",
        "jackson-core",
        "2.18.6",
        "f7171732c04c97ff373bed60d2eba22ec4bab8e0",
    ),
    J(
        "com.fasterxml.jackson.core",
        "jackson-databind",
        "2.18.6",
        "7c2dd5a1a41c315150158557896096b484562417",
    ),
    J(
        "com.fasterxml.woodstox",
        "woodstox-core",
        "5.4.0",
        "3e05dcce371d3f672feba29f086ad78a93ae3996",
    ),
    J("com.google.code.findbugs", "jsr305", "3.0.2", "25ea2e8b0c338a877313bd4672d3fe056ea78f0d"),
    J("com.google.code.gson", "gson", "2.9.0", "8a1167e089096758b49f9b34066ef98b2f4b37aa"),
    J("com.google.guava", "failureaccess", "1.0.3", "aeaffd00d57023a2c947393ed251f0354f0985fc"),
    J("com.google.guava", "guava", "33.4.8-jre", "e70a3268e6cd3e7d458aa15787ce6811c34e96ae"),
    J(
        "com.google.guava",
        "listenablefuture",
        "9999.0-empty-to-avoid-conflict-with-guava",
        "b421526c5f297295adef1c886e5246c39d4ac629",
    ),
    J(
        "com.google.j2objc",
        "j2objc-annotations",
        "3.0.0",
        "7399e65dd7e9ff3404f4535b2f017093bdb134c7",
    ),
    J("com.google.re2j", "re2j", "1.1", "d716952ab58aa4369ea15126505a36544d50a333"),
    J("com.jcraft", "jsch", "0.1.55", "bbd40e5aa7aa3cfad5db34965456cee738a42a50"),
    J("com.nimbusds", "nimbus-jose-jwt", "10.4", "0ca983d3f13080567e36ea554a15af38f31a0cb4"),
    J(
        "com.sun.activation",
        "jakarta.activation",
        "1.2.2",
        "74548703f9851017ce2f556066659438019e7eb5",
    ),
    J(
        "com.sun.istack",
        "istack-commons-runtime",
        "3.0.12",
        "cbbe1a62b0cc6c85972e99d52aaee350153dc530",
    ),
    J("commons-cli", "commons-cli", "1.9.0", "e1cdfa8bf40ccbb7440b2d1232f9f45bb20a1844"),
    J("commons-codec", "commons-codec", "1.15", "49d94806b6e3dc933dacbd8acb0fdbab8ebd1e5d"),
    J("commons-daemon", "commons-daemon", "1.0.13", "750856a1fdb3ddf721ccf73c3518e4211cffc3a3"),
    J("commons-io", "commons-io", "2.16.1", "377d592e740dc77124e0901291dbfaa6810a200e"),
    J("commons-logging", "commons-logging", "1.2", "4bfc12adfe4842bf07b657f0369c4cb522955686"),
    J("commons-net", "commons-net", "3.9.0", "5a4e26802e0a5a42938f987976b55dae4a6cc636"),
    J("dnsjava", "dnsjava", "3.6.1", "bbc749a92721a6ac61a1dcc2b221d098ceca356a"),
    J("io.dropwizard.metrics", "metrics-core", "3.2.4", "36af4975e38bb39686a63ba5139dce8d3f410669"),
    J("io.netty", "netty-all", "4.1.130.Final", "a31592d9516c0dca443ad9d5f99ad67a7348ec25"),
    J("io.netty", "netty-buffer", "4.1.130.Final", "ac7c21d8df92fe99f04dff2e28ff387b8195e6cf"),
    J("io.netty", "netty-codec-dns", "4.1.130.Final", "efe5cecf79551fda4f5a14c73934e7eedc1e234d"),
    J(
        "io.netty",
        "netty-codec-haproxy",
        "4.1.130.Final",
        "559d3ea10f5db4eece73b89f382cde2c48da7e4e",
    ),
    J("io.netty", "netty-codec-http", "4.1.130.Final", "281823954b07b2991da521bddddd2d2adcbef0bb"),
    J("io.netty", "netty-codec-http2", "4.1.130.Final", "3d9f8c56e4bc30ddc982c7e241422ec4033349c2"),
    J(
        "io.netty",
        "netty-codec-memcache",
        "4.1.130.Final",
        "42c596daf1222b125d36d5245d9e5f0834546436",
    ),
    J("io.netty", "netty-codec-mqtt", "4.1.130.Final", "2436463b36f133162d7616e3e84125ee29ef1936"),
    J("io.netty", "netty-codec-redis", "4.1.130.Final", "9d1a832c2402a1f1d6c9f24c05b515765271f2a6"),
    J("io.netty", "netty-codec-smtp", "4.1.130.Final", "d186902212f54e6316f8c5065e2934435b80ee99"),
    J("io.netty", "netty-codec-socks", "4.1.130.Final", "fdf31122e3dedd9c87f0865136a895ab699881ca"),
    J("io.netty", "netty-codec-stomp", "4.1.130.Final", "3e8f21c644fabf530bd5ab4c53c17cd18e0c706c"),
    J("io.netty", "netty-codec-xml", "4.1.130.Final", "2ac0209d79ab7e6817e02cde12451aea25ebc2bd"),
    J("io.netty", "netty-codec", "4.1.130.Final", "a645e96a5db4c6266f995d0d3d6ad04726e6c87a"),
    J("io.netty", "netty-common", "4.1.130.Final", "d4a1809fd03b560c82f7e35228e524fed96926f3"),
    J(
        "io.netty",
        "netty-handler-proxy",
        "4.1.130.Final",
        "9356fba7a979f4321dbfef39ccd137eef76316a2",
    ),
    J(
        "io.netty",
        "netty-handler-ssl-ocsp",
        "4.1.130.Final",
        "c34d266008578bcce84f14d56a34b5d510939580",
    ),
    J("io.netty", "netty-handler", "4.1.130.Final", "e0593333f454ea57a02c6f4656401506e3deae14"),
    J(
        "io.netty",
        "netty-resolver-dns-classes-macos",
        "4.1.130.Final",
        "2a212aa4f053aa72e6678d7a84f9bcedc74ad1e4",
    ),
    J(
        "io.netty",
        "netty-resolver-dns-native-macos",
        "4.1.130.Final",
        "5f3bf5e036a248c3d43c145d065d9b48c2a5219b",
        "osx-aarch_64",
    ),
    J(
        "io.netty",
        "netty-resolver-dns-native-macos",
        "4.1.130.Final",
        "4a96fdac6100f814f840d1d7a99036d078265ef9",
        "osx-x86_64",
    ),
    J(
        "io.netty",
        "netty-resolver-dns",
        "4.1.130.Final",
        "a08b6f50ce63a95a426e79f784158a0a670dbbf4",
    ),
    J("io.netty", "netty-resolver", "4.1.130.Final", "c22bc6c0a694ce099548b92e88ac58527fe6e9a9"),
    J(
        "io.netty",
        "netty-transport-classes-epoll",
        "4.1.130.Final",
        "98ae3b61ebe99ff3c94e2e10bf4410b4c55fa2d4",
    ),
    J(
        "io.netty",
        "netty-transport-classes-kqueue",
        "4.1.130.Final",
        "5cbd3b20e25a2a9cfa0965db913459b53dcfbc82",
    ),
    J(
        "io.netty",
        "netty-transport-native-epoll",
        "4.1.130.Final",
        "5a8212b1d2f8109149ed6e988c645d23efc491c7",
        "linux-aarch_64",
    ),
    J(
        "io.netty",
        "netty-transport-native-epoll",
        "4.1.130.Final",
        "ae6e51c6da79288fd7bb19e62da7a1dd156b06c1",
        "linux-riscv64",
    ),
    J(
        "io.netty",
        "netty-transport-native-epoll",
        "4.1.130.Final",
        "8accbc51e7fea8aad3a5b5e02b57d06520082add",
        "linux-x86_64",
    ),
    J(
        "io.netty",
        "netty-transport-native-epoll",
        "4.1.130.Final",
        "8285f5c35d72a3e1e6c01101b4d7b8dcd9b0cd20",
    ),
    J(
        "io.netty",
        "netty-transport-native-kqueue",
        "4.1.130.Final",
        "f705c9ceb61e2144ca0d382bdddf83b34aeb6cbe",
        "osx-aarch_64",
    ),
    J(
        "io.netty",
        "netty-transport-native-kqueue",
        "4.1.130.Final",
        "1e13caf359ee1a5dcd05acad920ebd34c8ea8589",
        "osx-x86_64",
    ),
    J(
        "io.netty",
        "netty-transport-native-unix-common",
        "4.1.130.Final",
        "a29adec03f7dbefdab3b21523a15c35e794f3154",
    ),
    J(
        "io.netty",
        "netty-transport-rxtx",
        "4.1.130.Final",
        "a336f7e49f284079954cfacc78a3719dadb45d87",
    ),
    J(
        "io.netty",
        "netty-transport-sctp",
        "4.1.130.Final",
        "52380b13f43c0eee64161fd2d1c915af89fe640d",
    ),
    J(
        "io.netty",
        "netty-transport-udt",
        "4.1.130.Final",
        "5b968871c5c54e4166cb584baab917fe78256d58",
    ),
    J("io.netty", "netty-transport", "4.1.130.Final", "3a25cd7a1c057ed9a1606caa4b693f9c8b5c4b53"),
    J(
        "jakarta.activation",
        "jakarta.activation-api",
        "1.2.1",
        "562a587face36ec7eff2db7f2fc95425c6602bc1",
    ),
    J(
        "jakarta.annotation",
        "jakarta.annotation-api",
        "1.3.5",
        "59eb84ee0d616332ff44aba065f3888cf002cd2d",
    ),
    J(
        "jakarta.servlet",
        "jakarta.servlet-api",
        "4.0.4",
        "b8a1142e04838fe54194049c6e7a18dae8f9b960",
    ),
    J(
        "jakarta.servlet.jsp",
        "jakarta.servlet.jsp-api",
        "2.3.6",
        "ee48550ece1af1e0d8bd4877dbc6da5c29c5496b",
    ),
    J(
        "jakarta.validation",
        "jakarta.validation-api",
        "2.0.2",
        "5eacc6522521f7eacb081f95cee1e231648461e7",
    ),
    J("jakarta.ws.rs", "jakarta.ws.rs-api", "2.1.6", "1dcb770bce80a490dff49729b99c7a60e9ecb122"),
    J(
        "jakarta.xml.bind",
        "jakarta.xml.bind-api",
        "2.3.3",
        "48e3b9cfc10752fba3521d6511f4165bea951801",
    ),
    J("javax.servlet", "javax.servlet-api", "3.1.0", "3cd63d075497751784b2fa84be59432f4905bf7c"),
    J("org.apache.avro", "avro", "1.11.5", "39b03945fc96f8e6146849aa49b516cf3657b151"),
    J(
        "org.apache.commons",
        "commons-collections4",
        "4.4",
        "62ebe7544cb7164d87e0637a2a6a2bdc981395e8",
    ),
    J(
        "org.apache.commons",
        "commons-compress",
        "1.26.1",
        "44331c1130c370e726a2e1a3e6fba6d2558ef04a",
    ),
    J(
        "org.apache.commons",
        "commons-configuration2",
        "2.10.1",
        "2b681b3bcddeaa5bf5c2a2939cd77e2f9ad6efda",
    ),
    J("org.apache.commons", "commons-lang3", "3.18.0", "fb14946f0e39748a6571de0635acbe44e7885491"),
    J("org.apache.commons", "commons-math3", "3.6.1", "e4ba98f1d4b3c80ec46392f25e094a6a2e58fcbf"),
    J("org.apache.commons", "commons-text", "1.14.0", "adcb0d4c67eabc79682604b47eb852aaff21138a"),
    J("org.apache.curator", "curator-client", "5.2.0", "221dde476d45c328da9a08e0671edc4ee654ccb4"),
    J(
        "org.apache.curator",
        "curator-framework",
        "5.2.0",
        "dffcfb521d99b9b7515f7b6041badac62910075e",
    ),
    J("org.apache.curator", "curator-recipes", "5.2.0", "477c28fdc25eb5d59759d8e931be191f11068f4a"),
    J(
        "org.apache.hadoop",
        "hadoop-annotations",
        "3.5.0",
        "ddfc5ae8c629041729c67cdd706d4e9bb9d5726c",
    ),
    J("org.apache.hadoop", "hadoop-auth", "3.5.0", "df939409881acda49ac8110480adf75293dd0abb"),
    J(
        "org.apache.hadoop",
        "hadoop-common",
        "3.5.0",
        "8c504186b66b11b6d1e196e9684cd4922f903811",
        "tests",
    ),
    J("org.apache.hadoop", "hadoop-common", "3.5.0", "4670eab00f64eb10718628edc5680c6e389e04a4"),
    J(
        "org.apache.hadoop",
        "hadoop-hdfs-client",
        "3.5.0",
        "06d7e1acb1ac0d09a5a4162c0b1e379568a72dd6",
    ),
    J(
        "org.apache.hadoop",
        "hadoop-hdfs",
        "3.5.0",
        "1748fb528be30ceac5fea7ea1688384e104856f8",
        "tests",
    ),
    J("org.apache.hadoop", "hadoop-hdfs", "3.5.0", "a56a58f1df53f7dbfa920427b0bae53ba2a391eb"),
    J(
        "org.apache.hadoop.thirdparty",
        "hadoop-shaded-guava",
        "1.5.0",
        "f2ca5a1a9151cb9e14ea069770eba750b38ddb70",
    ),
    J(
        "org.apache.hadoop.thirdparty",
        "hadoop-shaded-protobuf_3_25",
        "1.5.0",
        "810f1b57ad34faf0823b217d4bbfde40b254f6f1",
    ),
    J(
        "org.apache.httpcomponents",
        "httpclient",
        "4.5.13",
        "e5f6cae5ca7ecaac1ec2827a9e2d65ae2869cada",
    ),
    J(
        "org.apache.httpcomponents",
        "httpcore",
        "4.4.13",
        "853b96d3afbb7bf8cc303fe27ee96836a10c1834",
    ),
    J("org.apache.kerby", "kerb-core", "2.0.3", "2ed4ee03585bb1749f3d5bf4951208cb36839e82"),
    J("org.apache.kerby", "kerb-crypto", "2.0.3", "a19d9c3fbcf52abd2f804f2d88f8bbf4195883a8"),
    J("org.apache.kerby", "kerb-util", "2.0.3", "dda5fbcbd1e8d5de40edcf6161faf94b915152ce"),
    J("org.apache.kerby", "kerby-asn1", "2.0.3", "71e4005a005c8c4476b959befdc1ad668fbbe758"),
    J("org.apache.kerby", "kerby-config", "2.0.3", "322b25b1fb7f57f6987c54c5ef32887036108d61"),
    J("org.apache.kerby", "kerby-pkix", "2.0.3", "8301fe828f3b931617df990f77da636eacd9212d"),
    J("org.apache.kerby", "kerby-util", "2.0.3", "f1e80545460c37fca6b2c18f02fa32f6040928f0"),
    J(
        "org.apache.yetus",
        "audience-annotations",
        "0.12.0",
        "e0efa60318229590103e31c69ebdaae56d903644",
    ),
    J(
        "org.apache.zookeeper",
        "zookeeper-jute",
        "3.8.6",
        "ffa3fc7581f3b79a711bebfd3489b88b581e48c0",
    ),
    J("org.apache.zookeeper", "zookeeper", "3.8.6", "763093ac53585129a66f6794b3f56874fc62a149"),
    J("org.bouncycastle", "bcprov-jdk18on", "1.82", "e1118397395d21909a1b7b15120d0c2a68d7fd0c"),
    J("org.codehaus.woodstox", "stax2-api", "4.2.1", "a3f7325c52240418c2ba257b103c3c550e140c83"),
    J(
        "org.eclipse.jetty",
        "jetty-http",
        "9.4.58.v20250814",
        "98c52c56ecc1eedd9e05327f266f35c5ef8bf0c4",
    ),
    J(
        "org.eclipse.jetty",
        "jetty-io",
        "9.4.58.v20250814",
        "e198dae4d91fa79d9c1e2e039870d49c487c45cf",
    ),
    J(
        "org.eclipse.jetty",
        "jetty-security",
        "9.4.58.v20250814",
        "9b2548cdc6b30f0425b1563f2553ba75b29da4fd",
    ),
    J(
        "org.eclipse.jetty",
        "jetty-server",
        "9.4.58.v20250814",
        "e9ac923c0ffbc08f6b8d08bbc81093fee725b85e",
    ),
    J(
        "org.eclipse.jetty",
        "jetty-servlet",
        "9.4.58.v20250814",
        "bb10a371cbb3f03ae1657d79bea1f64ea6c0cc9b",
    ),
    J(
        "org.eclipse.jetty",
        "jetty-util-ajax",
        "9.4.58.v20250814",
        "44a41bccf287e2cd98f35a4ac758fe950a66be86",
    ),
    J(
        "org.eclipse.jetty",
        "jetty-util",
        "9.4.58.v20250814",
        "4175e2c7b347d31dba112e8a6f168a029a5f4225",
    ),
    J(
        "org.eclipse.jetty",
        "jetty-webapp",
        "9.4.58.v20250814",
        "e1bf6a01d0cd996a7699c26d8a45cace5fc63836",
    ),
    J(
        "org.eclipse.jetty",
        "jetty-xml",
        "9.4.58.v20250814",
        "e4c197a26c7bd7144d8ee1d0005eaf4ef8d2a6a0",
    ),
    J(
        "org.fusesource.leveldbjni",
        "leveldbjni-all",
        "1.8",
        "707350a2eeb1fa2ed77a32ddb3893ed308e941db",
    ),
    J(
        "org.glassfish.hk2.external",
        "aopalliance-repackaged",
        "2.6.1",
        "b2eb0a83bcbb44cc5d25f8b18f23be116313a638",
    ),
    J(
        "org.glassfish.hk2.external",
        "jakarta.inject",
        "2.6.1",
        "8096ebf722902e75fbd4f532a751e514f02e1eb7",
    ),
    J("org.glassfish.hk2", "hk2-api", "2.6.1", "114bd7afb4a1bd9993527f52a08a252b5d2acac5"),
    J("org.glassfish.hk2", "hk2-locator", "2.6.1", "9dedf9d2022e38ec0743ed44c1ac94ad6149acdd"),
    J("org.glassfish.hk2", "hk2-utils", "2.6.1", "396513aa96c1d5a10aa4f75c4dcbf259a698d62d"),
    J(
        "org.glassfish.hk2",
        "osgi-resource-locator",
        "1.0.3",
        "de3b21279df7e755e38275137539be5e2c80dd58",
    ),
    J("org.glassfish.jaxb", "jaxb-runtime", "2.3.9", "9d42b4f19df7e20b625b2044a7de81d95f6dff29"),
    J("org.glassfish.jaxb", "txw2", "2.3.9", "13a78453a89bf7d268382a520cba4d5435c5adfc"),
    J(
        "org.glassfish.jersey.containers",
        "jersey-container-servlet-core",
        "2.46",
        "d074bee825f0d85035a1fb98d51afa1ddec5eec6",
    ),
    J(
        "org.glassfish.jersey.containers",
        "jersey-container-servlet",
        "2.46",
        "a09b717ddac752f4da9e4a7508e4807e7042ecbd",
    ),
    J(
        "org.glassfish.jersey.core",
        "jersey-client",
        "2.46",
        "87a5040e196d854c04872f033011a16542a1a53a",
    ),
    J(
        "org.glassfish.jersey.core",
        "jersey-common",
        "2.46",
        "213c1f533bb88f226736ed4bc9f3ceabb9c5d87a",
    ),
    J(
        "org.glassfish.jersey.core",
        "jersey-server",
        "2.46",
        "726448a6e70697a6e7ba8026377c18c98675c92a",
    ),
    J(
        "org.glassfish.jersey.inject",
        "jersey-hk2",
        "2.46",
        "21cd007eab0a133558f93d99d610bd14936c50b0",
    ),
    J("org.javassist", "javassist", "3.30.2-GA", "284580b5e42dfa1b8267058566435d9e93fae7f7"),
    J("org.jspecify", "jspecify", "1.0.0", "7425a601c1c7ec76645a78d22b8c6a627edee507"),
    J("org.slf4j", "slf4j-api", "1.7.36", "6c62681a2f655b49963a5983b8b0950a6120ae14"),
    J("org.slf4j", "slf4j-reload4j", "1.7.36", "db708f7d959dee1857ac524636e85ecf2e1781c1"),
    J("org.xerial.snappy", "snappy-java", "1.1.10.4", "50d0390056017158bdc75c063efd5c2a898d5f0c"),
)

FetchError = maven.FetchError


def stamp_text() -> str:
    return "".join(f"{j.coordinates} sha1={j.sha1} {j.name}\n" for j in JARS)


def is_current(dest: Path = DEST) -> bool:
    try:
        if (dest / STAMP_NAME).read_text(encoding="utf-8") != stamp_text():
            return False
    except OSError:
        return False
    return all((dest / j.name).is_file() for j in JARS)


def fetch(dest: Path = DEST, repo: str | None = None, quiet: bool = False) -> bool:
    """Put every pinned jar into `dest` unless it is there; True when something was fetched.
    Each is written under a temporary name and renamed into place; jars no longer pinned are
    removed (the folder is this tool's alone)."""

    def log(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr)

    stamp = dest / STAMP_NAME
    if is_current(dest):
        stamp.touch()  # newer than this script: make's rule is satisfied
        return False
    repo = repo or os.environ.get(maven.REPO_ENV) or maven.CENTRAL
    dest.mkdir(parents=True, exist_ok=True)
    fetched = False
    with tempfile.TemporaryDirectory(prefix=".hdfs-fetch-", dir=dest.parent) as tmp:
        work = Path(tmp)
        for jar in JARS:
            target = dest / jar.name
            if target.is_file() and maven.sha1_of(target) == jar.sha1:
                continue
            got = maven.checked_jar(jar, repo, work, log, "fetch_hdfs_test_jars")
            staged = work / (jar.name + ".part")
            staged.write_bytes(got.read_bytes())
            os.replace(staged, target)
            fetched = True
        for old in dest.glob("*.jar"):
            if old.name not in {j.name for j in JARS}:
                old.unlink()
        stamp.write_text(stamp_text(), encoding="utf-8")
    log(f"fetch_hdfs_test_jars: MiniDFSCluster's {len(JARS)} jars in {dest}")
    return fetched


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dest", type=Path, default=DEST, help="the folder to fill (%(default)s)")
    ap.add_argument(
        "--repo", help=f"a Maven repository URL (default ${maven.REPO_ENV}, else {maven.CENTRAL})"
    )
    args = ap.parse_args(argv)
    try:
        if not fetch(args.dest, args.repo, quiet=False):
            print(f"fetch_hdfs_test_jars: the jars are already in {args.dest}", file=sys.stderr)
    except FetchError as e:
        print(f"fetch_hdfs_test_jars: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
