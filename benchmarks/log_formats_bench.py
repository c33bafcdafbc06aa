"""Speed of the log, XML and packet-capture readers (#33): MB/s scanned by drillspark's readers
(drillspark.sql and Spark's `spark.read.format("drill-<type>")`, the same Scala reader) against
the most direct alternative a user would pick on the same file, in one run: Spark's text source
with `regexp_extract` for logRegex, httpd, syslog and ltsv lines (what a Spark user writes
without Drill's formats), Spark's built-in XML source for xml. pcap has no Spark alternative:
its two drillspark doors are reported, and pcapng and sessionizeTCPStreams through drillspark.sql. Every read touches every column it produces (an
aggregate over them). Files are written to a temporary folder first; the best of --runs."""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

LOG_REGEX = r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (\w+)\s+\[([^\]]+)\] (.*)"
COMBINED = r'^(\S*) (\S*) (\S*) \[([^\]]*)\] "(.*?)" (\d{3}|-) (\d+|-) "(.*?)" "(.*?)"$'


def best(runs: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def write_files(folder: Path, lines: int, packets: int) -> None:
    rnd = random.Random(7)
    levels = ["INFO", "WARN", "ERROR", "DEBUG"]
    with (folder / "app.log").open("w") as f:
        for i in range(lines):
            f.write(f"2024-01-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d} "
                    f"{levels[i % 4]}  [pool-{i % 9}] request {i} took {rnd.randint(1, 5000)} ms\n")  # fmt: skip
    with (folder / "access.httpd").open("w") as f:
        for i in range(lines // 2):
            f.write(f'10.0.{i % 250}.{i % 200} - user{i % 50} [10/Oct/2024:13:{i % 60:02d}:36 +0000] '
                    f'"GET /p/{i % 1000}?q={i}&x=1 HTTP/1.1" 200 {i % 9000} '
                    f'"http://example.com/from/{i % 77}" "Mozilla/5.0 (X11; Linux) v{i % 30}"\n')  # fmt: skip
    with (folder / "m.syslog").open("w") as f:
        for i in range(lines):
            f.write(f"<{(i % 24) * 8 + i % 8}>1 2024-10-11T22:14:{i % 60:02d}.003Z host{i % 40} "
                    f'app{i % 7} {i} ID{i % 90} [sd@1 k="{i % 13}" j="x"] message number {i}\n')  # fmt: skip
    with (folder / "a.ltsv").open("w") as f:
        for i in range(lines):
            f.write(f"host:10.0.0.{i % 250}\tuser:u{i % 50}\tstatus:{200 + i % 5}\t"
                    f"req:GET /x/{i} HTTP/1.0\tsize:{i % 9000}\n")  # fmt: skip
    with (folder / "d.xml").open("w") as f:
        f.write("<root>\n")
        for i in range(lines // 4):
            f.write(f'<rec id="{i}"><name>n{i % 977}</name><score>{i * 0.5}</score>'
                    f"<addr><city>c{i % 31}</city><zip>{i % 99999}</zip></addr></rec>\n")  # fmt: skip
        f.write("</root>\n")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.formats import pcap_packets as p

    base = p.PACKETS
    p.write_pcap(folder / "c.pcap", [(1700000000 + i, i % 1000000, base[i % len(base)][2])
                                     for i in range(packets)])  # fmt: skip
    p.write_pcapng(folder / "c.pcapng", [(1700000000 + i, i % 1000000, base[i % len(base)][2])
                                         for i in range(packets)])  # fmt: skip
    # whole TCP connections one after another, each on its own client port (sessionizing)
    conversations = []
    for n in range(max(1, packets // 8)):
        conversations += p._conversation("10.1.1.1", 1024 + n % 60000, "10.1.1.2", 80,
                                         1700000000 + 8 * n, b"hello", b"world!")  # fmt: skip
    p.write_pcap(folder / "s.pcap", conversations)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--packets", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=None, help="formats to measure (default: all)")
    args, _ = ap.parse_known_args(argv)

    import drillspark
    from drillspark.sql.engine import SqlEngine
    from drillspark.sql.session import SqlSession

    spark = drillspark.session(master="local[2]", **{"spark.ui.enabled": "false"})
    with tempfile.TemporaryDirectory(prefix="log-formats-bench-") as tmp:
        folder = Path(tmp)
        write_files(folder, args.lines, args.packets)
        engine = SqlEngine(spark, SqlSession(workspaces={"b": tmp}))
        results = []

        def run(fmt: str, file: str, reader: str, fn: Callable[[], object]) -> None:
            if args.only and fmt not in args.only:
                return
            mb = os.path.getsize(folder / file) / 1e6
            results.append((fmt, reader, mb, best(args.runs, fn)))

        def sql(q: str) -> Callable[[], object]:
            return lambda: engine.execute(q)[-1].collect()

        def text_regex(file: str, regex: str, groups: int) -> Callable[[], object]:
            cols = [f"max(regexp_extract(value, '{regex.replace(chr(92), chr(92) * 2)}', {g}))"
                    for g in range(1, groups + 1)]  # fmt: skip
            return lambda: (
                spark.read.text(str(folder / file)).selectExpr("count(*)", *cols).collect()
            )

        regex = LOG_REGEX.replace("\\", "\\\\")
        log_tf = f"table(b.`app.log`(type => 'logRegex', regex => '{regex}'))"
        run("logRegex", "app.log", "drillspark.sql", sql(
            f"SELECT COUNT(*), MAX(columns[0]), MAX(columns[1]), MAX(columns[2]), MAX(columns[3]) FROM {log_tf}"))  # fmt: skip
        run("logRegex", "app.log", "spark.read drill-logregex", lambda: spark.read.format(
            "drill-logregex").option("regex", LOG_REGEX).load(str(folder / "app.log")).selectExpr(
            "count(*)", "max(columns[0])", "max(columns[1])", "max(columns[2])", "max(columns[3])").collect())  # fmt: skip
        run(
            "logRegex",
            "app.log",
            "spark.read.text + regexp_extract",
            text_regex("app.log", LOG_REGEX, 4),
        )

        hcols = ("connection_client_host", "connection_client_user", "request_receive_time",
                 "request_firstline_method", "request_firstline_uri_path", "request_status_last",
                 "response_body_bytes", "request_referer", "`request_user-agent`")  # fmt: skip
        hagg = "COUNT(*), " + ", ".join(f"MAX({c})" for c in hcols)
        run(
            "httpd",
            "access.httpd",
            "drillspark.sql (9 columns)",
            sql(f"SELECT {hagg} FROM b.`access.httpd`"),
        )
        run("httpd", "access.httpd", "spark.read drill-httpd (9 columns)", lambda: spark.read.format(
            "drill-httpd").load(str(folder / "access.httpd")).selectExpr(
            "count(*)", *(f"max({c})" for c in hcols)).collect())  # fmt: skip
        run(
            "httpd",
            "access.httpd",
            "spark.read.text + regexp_extract",
            text_regex("access.httpd", COMBINED, 9),
        )
        # parseUserAgent: Yauaa on each line's agent (30 distinct agents, so mostly its cache);
        # the first run also builds the analyzer
        run("httpd", "access.httpd", "spark.read drill-httpd parseUserAgent (2 agent fields)",
            lambda: spark.read.format("drill-httpd").option("parseUserAgent", "true").load(
                str(folder / "access.httpd")).selectExpr("count(*)", "max(`request_user-agent_agent__name`)",
                "max(`request_user-agent_device__class`)").collect())  # fmt: skip

        scols = ("event_date", "severity", "facility", "ip", "app_name", "process_id", "message_id",
                 "structured_data_text", "message")  # fmt: skip
        run("syslog", "m.syslog", "drillspark.sql", sql(
            "SELECT COUNT(*), " + ", ".join(f"MAX({c})" for c in scols) + " FROM b.`m.syslog`"))  # fmt: skip
        run("syslog", "m.syslog", "spark.read.text + regexp_extract", text_regex(
            "m.syslog", r"^<(\d+)>1 (\S+) (\S+) (\S+) (\S+) (\S+) (-|\[.*\]) (.*)$", 8))  # fmt: skip

        lcols = ("host", "`user`", "status", "req", "size")
        run("ltsv", "a.ltsv", "drillspark.sql", sql(
            "SELECT COUNT(*), " + ", ".join(f"MAX({c})" for c in lcols) + " FROM b.`a.ltsv`"))  # fmt: skip
        run("ltsv", "a.ltsv", "spark.read.text + regexp_extract", text_regex(
            "a.ltsv", r"host:([^\t]*)\tuser:([^\t]*)\tstatus:([^\t]*)\treq:([^\t]*)\tsize:(.*)", 5))  # fmt: skip

        run("xml", "d.xml", "drillspark.sql", sql(
            "SELECT COUNT(*), MAX(t.attributes.rec_id), MAX(name), MAX(score), MAX(t.addr.city), "
            "MAX(t.addr.zip) FROM table(b.`d.xml`(type => 'xml', dataLevel => 2)) t"))  # fmt: skip
        run("xml", "d.xml", "Spark's XML source (rowTag rec)", lambda: spark.read.format("xml").option(
            "rowTag", "rec").load(str(folder / "d.xml")).selectExpr(
            "count(*)", "max(_id)", "max(name)", "max(score)", "max(addr.city)", "max(addr.zip)").collect())  # fmt: skip

        pcols = ("src_ip", "dst_ip", "src_port", "dst_port", "type", "packet_timestamp",
                 "tcp_flags", "packet_length", "data")  # fmt: skip
        run("pcap", "c.pcap", "drillspark.sql", sql(
            "SELECT COUNT(*), " + ", ".join(f"MAX({c})" for c in pcols) + " FROM b.`c.pcap`"))  # fmt: skip
        run("pcap", "c.pcap", "spark.read drill-pcap", lambda: spark.read.format("drill-pcap").load(
            str(folder / "c.pcap")).selectExpr("count(*)", *(f"max({c})" for c in pcols)).collect())  # fmt: skip

        run("pcapng", "c.pcapng", "drillspark.sql", sql(
            "SELECT COUNT(*), " + ", ".join(f"MAX({c})" for c in pcols if c not in (
                "packet_timestamp", "data")) + ", MAX(`timestamp`), MAX(packet_data) FROM b.`c.pcapng`"))  # fmt: skip
        scols = ("src_ip", "src_port", "session_duration", "total_packet_count",
                 "data_volume_from_origin", "data_from_remote")  # fmt: skip
        run("pcap sessions", "s.pcap", "drillspark.sql (sessionizeTCPStreams)", sql(
            "SELECT COUNT(*), " + ", ".join(f"MAX({c})" for c in scols) + " FROM table(b.`s.pcap`("
            "type => 'pcap', sessionizeTCPStreams => true))"))  # fmt: skip

    print(f"{'format':<9} {'reader':<38} {'MB':>8} {'s':>8} {'MB/s':>8}")
    for fmt, reader, size, secs in results:
        print(f"{fmt:<9} {reader:<38} {size:8.1f} {secs:8.2f} {size / secs:8.2f}")
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
