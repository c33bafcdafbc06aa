"""Drill's `pcap` format (contrib/format-pcapng): packet captures, classic `.pcap` and
`.pcapng`, one row per packet in Drill's columns (two column sets, one per file kind), or with
`sessionizeTCPStreams` one row per TCP connection of a classic capture, read by the extension's
`drill-pcap` source (jvm drillspark/formats/pcap/PcapFormat.scala; docs/formats.md). Drill's
module also registers the type `pcapng` (the same reader, no sessionizing), owned here too."""

from __future__ import annotations

from typing import Any, ClassVar

from drillspark.formats.base import FormatError, FormatPlugin, Option


class PcapFormat(FormatPlugin):
    TYPE = "pcap"
    EXTENSIONS: ClassVar[tuple[str, ...]] = ("pcap", "pcapng")
    SOURCE = "drill-pcap"
    BOOTSTRAP = True
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("stat", False, (bool,), "Drill's session statistics rows (not read here)"),
        Option(
            "sessionizeTCPStreams",
            False,
            (bool,),
            "one row per TCP connection of a classic pcap file (Drill ignores it for pcapng)",
        ),
    )

    @classmethod
    def validate(cls, config: dict[str, Any], where: str) -> None:
        if config.get("stat"):
            raise FormatError(
                f"{where}option 'stat' (Drill's per-session statistics of a pcapng file) is not "
                "supported by drillspark: read the packets with stat => false"
            )

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        # as Drill 1.22 with its contrib plugins shows it in its bootstrap dfs
        return {"pcap": {"type": "pcap", "extensions": ["pcap", "pcapng"]}}


class PcapngFormat(PcapFormat):
    """Drill's `pcapng` type (its PcapngFormatConfig): `.pcapng` files, the packets always."""

    TYPE = "pcapng"
    EXTENSIONS = ("pcapng",)
    BOOTSTRAP = False
    OPTIONS: ClassVar[tuple[Option, ...]] = (PcapFormat.OPTIONS[0],)

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        return {}  # Drill's bootstrap lists `pcap` only, for both extensions


FORMAT = PcapFormat()
PCAPNG_FORMAT = PcapngFormat()
