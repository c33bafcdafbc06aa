"""Fetch the jars of Hadoop's MiniDFSCluster for the `file` plugin's hdfs:// tests (the long
tier, tests/storage/test_hdfs_sql.py): hadoop-hdfs 3.5.0 with its test jar (MiniDFSCluster),
hadoop-common 3.5.0 with its test jar, hadoop-hdfs-client 3.5.0, and what they need at run time
(`mvn dependency:copy-dependencies`, runtime scope: 130 jars, 73 MB; Apache License 2.0 and
compatible), from Maven Central, each checked against its SHA-1 (pinned here; the `.sha1` Maven
Central publishes next to it must agree), into tests/storage/jars/hdfs/ (git-ignored). The
cluster runs in a JVM of its own (tests/storage/hdfs_server.py), never in drillspark's: the
product reads HDFS through pyspark's own hadoop-client 3.5.0. Other jars in the folder are
removed (it is this tool's alone). The download, checksum and local-repository code is
tools/pinned_jars.py's.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pinned_jars as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "tests" / "storage" / "jars" / "hdfs"

# sha1 group:artifact:version[:classifier] (classifier `tests`: a module's test jar)
JARS = maven.pinned(
    """
f9d9e55d1072d7a697d2bf06e1847e93635a7cf9 ch.qos.reload4j:reload4j:1.2.22
d0d2f9e504c6fe443eb2785370c701f911fc87c6 com.fasterxml.jackson.core:jackson-annotations:2.18.6
f7171732c04c97ff373bed60d2eba22ec4bab8e0 com.fasterxml.jackson.core:jackson-core:2.18.6
7c2dd5a1a41c315150158557896096b484562417 com.fasterxml.jackson.core:jackson-databind:2.18.6
3e05dcce371d3f672feba29f086ad78a93ae3996 com.fasterxml.woodstox:woodstox-core:5.4.0
25ea2e8b0c338a877313bd4672d3fe056ea78f0d com.google.code.findbugs:jsr305:3.0.2
8a1167e089096758b49f9b34066ef98b2f4b37aa com.google.code.gson:gson:2.9.0
aeaffd00d57023a2c947393ed251f0354f0985fc com.google.guava:failureaccess:1.0.3
e70a3268e6cd3e7d458aa15787ce6811c34e96ae com.google.guava:guava:33.4.8-jre
b421526c5f297295adef1c886e5246c39d4ac629 com.google.guava:listenablefuture:9999.0-empty-to-avoid-conflict-with-guava
7399e65dd7e9ff3404f4535b2f017093bdb134c7 com.google.j2objc:j2objc-annotations:3.0.0
d716952ab58aa4369ea15126505a36544d50a333 com.google.re2j:re2j:1.1
bbd40e5aa7aa3cfad5db34965456cee738a42a50 com.jcraft:jsch:0.1.55
0ca983d3f13080567e36ea554a15af38f31a0cb4 com.nimbusds:nimbus-jose-jwt:10.4
74548703f9851017ce2f556066659438019e7eb5 com.sun.activation:jakarta.activation:1.2.2
cbbe1a62b0cc6c85972e99d52aaee350153dc530 com.sun.istack:istack-commons-runtime:3.0.12
e1cdfa8bf40ccbb7440b2d1232f9f45bb20a1844 commons-cli:commons-cli:1.9.0
49d94806b6e3dc933dacbd8acb0fdbab8ebd1e5d commons-codec:commons-codec:1.15
750856a1fdb3ddf721ccf73c3518e4211cffc3a3 commons-daemon:commons-daemon:1.0.13
377d592e740dc77124e0901291dbfaa6810a200e commons-io:commons-io:2.16.1
4bfc12adfe4842bf07b657f0369c4cb522955686 commons-logging:commons-logging:1.2
5a4e26802e0a5a42938f987976b55dae4a6cc636 commons-net:commons-net:3.9.0
bbc749a92721a6ac61a1dcc2b221d098ceca356a dnsjava:dnsjava:3.6.1
36af4975e38bb39686a63ba5139dce8d3f410669 io.dropwizard.metrics:metrics-core:3.2.4
a31592d9516c0dca443ad9d5f99ad67a7348ec25 io.netty:netty-all:4.1.130.Final
ac7c21d8df92fe99f04dff2e28ff387b8195e6cf io.netty:netty-buffer:4.1.130.Final
efe5cecf79551fda4f5a14c73934e7eedc1e234d io.netty:netty-codec-dns:4.1.130.Final
559d3ea10f5db4eece73b89f382cde2c48da7e4e io.netty:netty-codec-haproxy:4.1.130.Final
281823954b07b2991da521bddddd2d2adcbef0bb io.netty:netty-codec-http:4.1.130.Final
3d9f8c56e4bc30ddc982c7e241422ec4033349c2 io.netty:netty-codec-http2:4.1.130.Final
42c596daf1222b125d36d5245d9e5f0834546436 io.netty:netty-codec-memcache:4.1.130.Final
2436463b36f133162d7616e3e84125ee29ef1936 io.netty:netty-codec-mqtt:4.1.130.Final
9d1a832c2402a1f1d6c9f24c05b515765271f2a6 io.netty:netty-codec-redis:4.1.130.Final
d186902212f54e6316f8c5065e2934435b80ee99 io.netty:netty-codec-smtp:4.1.130.Final
fdf31122e3dedd9c87f0865136a895ab699881ca io.netty:netty-codec-socks:4.1.130.Final
3e8f21c644fabf530bd5ab4c53c17cd18e0c706c io.netty:netty-codec-stomp:4.1.130.Final
2ac0209d79ab7e6817e02cde12451aea25ebc2bd io.netty:netty-codec-xml:4.1.130.Final
a645e96a5db4c6266f995d0d3d6ad04726e6c87a io.netty:netty-codec:4.1.130.Final
d4a1809fd03b560c82f7e35228e524fed96926f3 io.netty:netty-common:4.1.130.Final
9356fba7a979f4321dbfef39ccd137eef76316a2 io.netty:netty-handler-proxy:4.1.130.Final
c34d266008578bcce84f14d56a34b5d510939580 io.netty:netty-handler-ssl-ocsp:4.1.130.Final
e0593333f454ea57a02c6f4656401506e3deae14 io.netty:netty-handler:4.1.130.Final
2a212aa4f053aa72e6678d7a84f9bcedc74ad1e4 io.netty:netty-resolver-dns-classes-macos:4.1.130.Final
5f3bf5e036a248c3d43c145d065d9b48c2a5219b io.netty:netty-resolver-dns-native-macos:4.1.130.Final:osx-aarch_64
4a96fdac6100f814f840d1d7a99036d078265ef9 io.netty:netty-resolver-dns-native-macos:4.1.130.Final:osx-x86_64
a08b6f50ce63a95a426e79f784158a0a670dbbf4 io.netty:netty-resolver-dns:4.1.130.Final
c22bc6c0a694ce099548b92e88ac58527fe6e9a9 io.netty:netty-resolver:4.1.130.Final
98ae3b61ebe99ff3c94e2e10bf4410b4c55fa2d4 io.netty:netty-transport-classes-epoll:4.1.130.Final
5cbd3b20e25a2a9cfa0965db913459b53dcfbc82 io.netty:netty-transport-classes-kqueue:4.1.130.Final
5a8212b1d2f8109149ed6e988c645d23efc491c7 io.netty:netty-transport-native-epoll:4.1.130.Final:linux-aarch_64
ae6e51c6da79288fd7bb19e62da7a1dd156b06c1 io.netty:netty-transport-native-epoll:4.1.130.Final:linux-riscv64
8accbc51e7fea8aad3a5b5e02b57d06520082add io.netty:netty-transport-native-epoll:4.1.130.Final:linux-x86_64
8285f5c35d72a3e1e6c01101b4d7b8dcd9b0cd20 io.netty:netty-transport-native-epoll:4.1.130.Final
f705c9ceb61e2144ca0d382bdddf83b34aeb6cbe io.netty:netty-transport-native-kqueue:4.1.130.Final:osx-aarch_64
1e13caf359ee1a5dcd05acad920ebd34c8ea8589 io.netty:netty-transport-native-kqueue:4.1.130.Final:osx-x86_64
a29adec03f7dbefdab3b21523a15c35e794f3154 io.netty:netty-transport-native-unix-common:4.1.130.Final
a336f7e49f284079954cfacc78a3719dadb45d87 io.netty:netty-transport-rxtx:4.1.130.Final
52380b13f43c0eee64161fd2d1c915af89fe640d io.netty:netty-transport-sctp:4.1.130.Final
5b968871c5c54e4166cb584baab917fe78256d58 io.netty:netty-transport-udt:4.1.130.Final
3a25cd7a1c057ed9a1606caa4b693f9c8b5c4b53 io.netty:netty-transport:4.1.130.Final
562a587face36ec7eff2db7f2fc95425c6602bc1 jakarta.activation:jakarta.activation-api:1.2.1
59eb84ee0d616332ff44aba065f3888cf002cd2d jakarta.annotation:jakarta.annotation-api:1.3.5
b8a1142e04838fe54194049c6e7a18dae8f9b960 jakarta.servlet:jakarta.servlet-api:4.0.4
ee48550ece1af1e0d8bd4877dbc6da5c29c5496b jakarta.servlet.jsp:jakarta.servlet.jsp-api:2.3.6
5eacc6522521f7eacb081f95cee1e231648461e7 jakarta.validation:jakarta.validation-api:2.0.2
1dcb770bce80a490dff49729b99c7a60e9ecb122 jakarta.ws.rs:jakarta.ws.rs-api:2.1.6
48e3b9cfc10752fba3521d6511f4165bea951801 jakarta.xml.bind:jakarta.xml.bind-api:2.3.3
3cd63d075497751784b2fa84be59432f4905bf7c javax.servlet:javax.servlet-api:3.1.0
39b03945fc96f8e6146849aa49b516cf3657b151 org.apache.avro:avro:1.11.5
62ebe7544cb7164d87e0637a2a6a2bdc981395e8 org.apache.commons:commons-collections4:4.4
44331c1130c370e726a2e1a3e6fba6d2558ef04a org.apache.commons:commons-compress:1.26.1
2b681b3bcddeaa5bf5c2a2939cd77e2f9ad6efda org.apache.commons:commons-configuration2:2.10.1
fb14946f0e39748a6571de0635acbe44e7885491 org.apache.commons:commons-lang3:3.18.0
e4ba98f1d4b3c80ec46392f25e094a6a2e58fcbf org.apache.commons:commons-math3:3.6.1
adcb0d4c67eabc79682604b47eb852aaff21138a org.apache.commons:commons-text:1.14.0
221dde476d45c328da9a08e0671edc4ee654ccb4 org.apache.curator:curator-client:5.2.0
dffcfb521d99b9b7515f7b6041badac62910075e org.apache.curator:curator-framework:5.2.0
477c28fdc25eb5d59759d8e931be191f11068f4a org.apache.curator:curator-recipes:5.2.0
ddfc5ae8c629041729c67cdd706d4e9bb9d5726c org.apache.hadoop:hadoop-annotations:3.5.0
df939409881acda49ac8110480adf75293dd0abb org.apache.hadoop:hadoop-auth:3.5.0
8c504186b66b11b6d1e196e9684cd4922f903811 org.apache.hadoop:hadoop-common:3.5.0:tests
4670eab00f64eb10718628edc5680c6e389e04a4 org.apache.hadoop:hadoop-common:3.5.0
06d7e1acb1ac0d09a5a4162c0b1e379568a72dd6 org.apache.hadoop:hadoop-hdfs-client:3.5.0
1748fb528be30ceac5fea7ea1688384e104856f8 org.apache.hadoop:hadoop-hdfs:3.5.0:tests
a56a58f1df53f7dbfa920427b0bae53ba2a391eb org.apache.hadoop:hadoop-hdfs:3.5.0
f2ca5a1a9151cb9e14ea069770eba750b38ddb70 org.apache.hadoop.thirdparty:hadoop-shaded-guava:1.5.0
810f1b57ad34faf0823b217d4bbfde40b254f6f1 org.apache.hadoop.thirdparty:hadoop-shaded-protobuf_3_25:1.5.0
e5f6cae5ca7ecaac1ec2827a9e2d65ae2869cada org.apache.httpcomponents:httpclient:4.5.13
853b96d3afbb7bf8cc303fe27ee96836a10c1834 org.apache.httpcomponents:httpcore:4.4.13
2ed4ee03585bb1749f3d5bf4951208cb36839e82 org.apache.kerby:kerb-core:2.0.3
a19d9c3fbcf52abd2f804f2d88f8bbf4195883a8 org.apache.kerby:kerb-crypto:2.0.3
dda5fbcbd1e8d5de40edcf6161faf94b915152ce org.apache.kerby:kerb-util:2.0.3
71e4005a005c8c4476b959befdc1ad668fbbe758 org.apache.kerby:kerby-asn1:2.0.3
322b25b1fb7f57f6987c54c5ef32887036108d61 org.apache.kerby:kerby-config:2.0.3
8301fe828f3b931617df990f77da636eacd9212d org.apache.kerby:kerby-pkix:2.0.3
f1e80545460c37fca6b2c18f02fa32f6040928f0 org.apache.kerby:kerby-util:2.0.3
e0efa60318229590103e31c69ebdaae56d903644 org.apache.yetus:audience-annotations:0.12.0
ffa3fc7581f3b79a711bebfd3489b88b581e48c0 org.apache.zookeeper:zookeeper-jute:3.8.6
763093ac53585129a66f6794b3f56874fc62a149 org.apache.zookeeper:zookeeper:3.8.6
e1118397395d21909a1b7b15120d0c2a68d7fd0c org.bouncycastle:bcprov-jdk18on:1.82
a3f7325c52240418c2ba257b103c3c550e140c83 org.codehaus.woodstox:stax2-api:4.2.1
98c52c56ecc1eedd9e05327f266f35c5ef8bf0c4 org.eclipse.jetty:jetty-http:9.4.58.v20250814
e198dae4d91fa79d9c1e2e039870d49c487c45cf org.eclipse.jetty:jetty-io:9.4.58.v20250814
9b2548cdc6b30f0425b1563f2553ba75b29da4fd org.eclipse.jetty:jetty-security:9.4.58.v20250814
e9ac923c0ffbc08f6b8d08bbc81093fee725b85e org.eclipse.jetty:jetty-server:9.4.58.v20250814
bb10a371cbb3f03ae1657d79bea1f64ea6c0cc9b org.eclipse.jetty:jetty-servlet:9.4.58.v20250814
44a41bccf287e2cd98f35a4ac758fe950a66be86 org.eclipse.jetty:jetty-util-ajax:9.4.58.v20250814
4175e2c7b347d31dba112e8a6f168a029a5f4225 org.eclipse.jetty:jetty-util:9.4.58.v20250814
e1bf6a01d0cd996a7699c26d8a45cace5fc63836 org.eclipse.jetty:jetty-webapp:9.4.58.v20250814
e4c197a26c7bd7144d8ee1d0005eaf4ef8d2a6a0 org.eclipse.jetty:jetty-xml:9.4.58.v20250814
707350a2eeb1fa2ed77a32ddb3893ed308e941db org.fusesource.leveldbjni:leveldbjni-all:1.8
b2eb0a83bcbb44cc5d25f8b18f23be116313a638 org.glassfish.hk2.external:aopalliance-repackaged:2.6.1
8096ebf722902e75fbd4f532a751e514f02e1eb7 org.glassfish.hk2.external:jakarta.inject:2.6.1
114bd7afb4a1bd9993527f52a08a252b5d2acac5 org.glassfish.hk2:hk2-api:2.6.1
9dedf9d2022e38ec0743ed44c1ac94ad6149acdd org.glassfish.hk2:hk2-locator:2.6.1
396513aa96c1d5a10aa4f75c4dcbf259a698d62d org.glassfish.hk2:hk2-utils:2.6.1
de3b21279df7e755e38275137539be5e2c80dd58 org.glassfish.hk2:osgi-resource-locator:1.0.3
9d42b4f19df7e20b625b2044a7de81d95f6dff29 org.glassfish.jaxb:jaxb-runtime:2.3.9
13a78453a89bf7d268382a520cba4d5435c5adfc org.glassfish.jaxb:txw2:2.3.9
d074bee825f0d85035a1fb98d51afa1ddec5eec6 org.glassfish.jersey.containers:jersey-container-servlet-core:2.46
a09b717ddac752f4da9e4a7508e4807e7042ecbd org.glassfish.jersey.containers:jersey-container-servlet:2.46
87a5040e196d854c04872f033011a16542a1a53a org.glassfish.jersey.core:jersey-client:2.46
213c1f533bb88f226736ed4bc9f3ceabb9c5d87a org.glassfish.jersey.core:jersey-common:2.46
726448a6e70697a6e7ba8026377c18c98675c92a org.glassfish.jersey.core:jersey-server:2.46
21cd007eab0a133558f93d99d610bd14936c50b0 org.glassfish.jersey.inject:jersey-hk2:2.46
284580b5e42dfa1b8267058566435d9e93fae7f7 org.javassist:javassist:3.30.2-GA
7425a601c1c7ec76645a78d22b8c6a627edee507 org.jspecify:jspecify:1.0.0
6c62681a2f655b49963a5983b8b0950a6120ae14 org.slf4j:slf4j-api:1.7.36
db708f7d959dee1857ac524636e85ecf2e1781c1 org.slf4j:slf4j-reload4j:1.7.36
50d0390056017158bdc75c063efd5c2a898d5f0c org.xerial.snappy:snappy-java:1.1.10.4
"""
)

FOLDER = maven.JarFolder("fetch_hdfs_test_jars", __doc__, DEST, JARS, owns_folder=True)
is_current, fetch, main = FOLDER.is_current, FOLDER.fetch, FOLDER.main


if __name__ == "__main__":
    sys.exit(main())
