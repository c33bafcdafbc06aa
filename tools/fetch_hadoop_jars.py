"""Fetch the jars `file` storage plugins on object stores need: Hadoop's S3A file system
(org.apache.hadoop:hadoop-aws 3.5.0, matching pyspark's hadoop-client 3.5.0) and the parts of
the AWS SDK v2 it uses (the versions hadoop-aws 3.5.0 was built with, 2.35.4; Apache License
2.0), from Maven Central.

Not the SDK's 600 MB `bundle` that hadoop-aws depends on: the modules below are what
`mvn dependency:tree` lists under `s3` and `s3-transfer-manager` 2.35.4, less what pyspark
already carries (netty, Apache HttpClient and HttpCore, commons-codec, slf4j), plus
hadoop-aws's analytics accelerator (S3AFileSystem loads its classes when it starts, whatever the
input stream); wildfly-openssl is left out (TLS works with the JDK's). Each jar is checked
against its SHA-1 (pinned here; the `.sha1` Maven Central publishes next to it must agree) and
lands in python/drillspark/jars/hadoop/: a git-ignored folder the wheel carries and
`drillspark.session()` / `configure()` put on `spark.jars` (drillspark/session.py); other jars
there are removed (the folder is this tool's alone). The download, checksum and
local-repository code is tools/pinned_jars.py's.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pinned_jars as maven  # noqa: E402  (the Maven fetch code: checksums, download, ~/.m2)

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "python" / "drillspark" / "jars" / "hadoop"
SDK = "2.35.4"


def _sdk(artifact: str, sha1: str) -> maven.PinnedJar:
    return maven.PinnedJar("software.amazon.awssdk", artifact, SDK, sha1)


JARS = (
    maven.PinnedJar(
        "org.apache.hadoop", "hadoop-aws", "3.5.0", "9e594525d264c0db653c7f68da98b245f7d61ea5"
    ),
    maven.PinnedJar(
        "software.amazon.s3.analyticsaccelerator",
        "analyticsaccelerator-s3",
        "1.3.1",
        "6c9bd0f6c440c9a78e82d272f5f0252d942419f6",
    ),
    maven.PinnedJar(
        "org.reactivestreams",
        "reactive-streams",
        "1.0.4",
        "3864a1320d97d7b045f729a326e1e077661f31b7",
    ),
    maven.PinnedJar(
        "software.amazon.eventstream",
        "eventstream",
        "1.0.1",
        "6ff8649dffc5190366ada897ba8525a836297784",
    ),
    _sdk("annotations", "0ee2f050aafed2b3b9393472a4fb35eb91c74555"),
    _sdk("apache-client", "406c25140a3a32ccd49ba3d752096a9fe2787ba3"),
    _sdk("arns", "d915a3104773b44533bd6f618a8c7b28c2e9d8a0"),
    _sdk("auth", "3a5f28f575d616813cad10a8db817984ed57d777"),
    _sdk("aws-core", "2f288fa2bac08dde3e9c74950bc9a7fe04913371"),
    _sdk("aws-query-protocol", "a4908689bc1285e192da926bd1d646d09d1d7def"),
    _sdk("aws-xml-protocol", "3a8c83d91ba7b41c29a2d84826e293ec4fa51386"),
    _sdk("checksums-spi", "36eba96eccfc87a5de204f72ad215ac362d28755"),
    _sdk("checksums", "75d7256f1fa208224a3b23e2100941c0416f38a5"),
    _sdk("crt-core", "eba7c2ddaef9938a072b4a6e58fd95ce8a7e0805"),
    _sdk("endpoints-spi", "5fd0e9e47a6fdf05ea5906ac38e0bce1268ab9f0"),
    _sdk("http-auth-aws-eventstream", "2590b41716ea3fd938fe614321da9c5367f6868c"),
    _sdk("http-auth-aws", "d149f075bc7b5631754cbb1adfcd2c77aa932a1b"),
    _sdk("http-auth-spi", "8b280ce879d02d3da134e61e303d8e6c5eacc988"),
    _sdk("http-auth", "ffa68c5e63d0f8ee9a5788029267cc450b5617c4"),
    _sdk("http-client-spi", "3995875e3b834d39d708b661142949078babc34a"),
    _sdk("identity-spi", "75e3168376548e375560e4595ba6a768458c87c1"),
    _sdk("json-utils", "ca561bcb836814901bb8eda4089e451dcbf18024"),
    _sdk("metrics-spi", "a2065eca2ade2adb2a937d4e671b52704cffbdc5"),
    _sdk("netty-nio-client", "90acbbb695727eac973267f70d72bd95244d1d60"),
    _sdk("profiles", "f9342cdd5f95a0d2f85bbedc3d25c3fc230beb51"),
    _sdk("protocol-core", "54d8a6bdbe86852311b80d2a5b782995d6d7d0b7"),
    _sdk("regions", "83ab2f31cd9932dc274aa418cd4cbd761cbca3c8"),
    _sdk("retries-spi", "22196f00e2560aa9c74b6a74f62b8bd51a4b94b6"),
    _sdk("retries", "02117c396b14d7db6c4b88d5c32b8380640a7bd0"),
    _sdk("s3-transfer-manager", "6e4f2e5072fbc8551940eeed15220ddd11c684b2"),
    _sdk("s3", "cc6cd77617d73cf9084d021e2693863bede49a4d"),
    _sdk("sdk-core", "7de70ccba4959d32e7a2ec549d312378413d36c9"),
    _sdk("third-party-jackson-core", "980758655bc742236478439d753c634858846d1c"),
    _sdk("utils-lite", "148d6b8801d9696c4cffff306dfdd3b96781af24"),
    _sdk("utils", "8bf086b3b751b058fa62e7f0398d94db7295ebbe"),
)

FetchError = maven.FetchError
FOLDER = maven.JarFolder("fetch_hadoop_jars", __doc__, DEST, JARS, owns_folder=True)
is_current, fetch, main = FOLDER.is_current, FOLDER.fetch, FOLDER.main


if __name__ == "__main__":
    sys.exit(main())
