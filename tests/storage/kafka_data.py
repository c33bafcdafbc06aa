"""The topics the `kafka` plugin's tests read (and Drill 1.22 read to give the answers in
tests/storage/data/drill_kafka_answers.json): fixed keys, partitions and timestamps (the test
broker keeps messages of any age), so every metadata column is known."""

from __future__ import annotations

import json
from typing import Any

T0 = 1700000000000  # 2023-11-14T22:13:20Z, in ms


def _m(value: Any, partition: int = 0, key: str | None = None, at: int = 0) -> dict[str, Any]:
    text = value if isinstance(value, str) else json.dumps(value)
    return {"value": text, "partition": partition, "key": key, "timestamp": T0 + at}


# topic -> (partitions, messages in the order sent)
TOPICS: dict[str, tuple[int, list[dict[str, Any]]]] = {
    # schema drift across messages and partitions, nested maps and lists, keys and no key
    "events": (
        2,
        [
            _m({"id": 1, "name": "a", "tags": ["x", "y"], "m": {"k": 1}}, 0, "k1", 0),
            _m({"id": 2, "name": "b", "price": 2.5}, 1, None, 1000),
            _m({"id": 3, "extra": True, "m": {"k": 3, "j": "z"}}, 0, "k3", 2000),
            _m({"id": 4, "name": "d", "tags": []}, 1, "k4", 3000),
        ],
    ),
    # a malformed message between two good ones (offset 1)
    "bad": (1, [_m({"id": 1}), _m('{"id": 2, oops', at=1000), _m({"id": 3}, at=2000)]),
    # numbers that all_text_mode / read_numbers_as_double change
    "numbers": (1, [_m({"n": 1, "x": 1.5}), _m({"n": 2, "x": 2}, at=1000)]),
    # a topic without messages
    "empty": (1, []),
    # messages that are not one JSON object: two objects, an array, empty, a string; then one
    "multi": (
        1,
        [_m('{"a": 1} {"a": 2}'), _m('[{"a": 3}]', at=1), _m("", at=2), _m('"str"', at=3)]
        + [_m({"a": 5}, at=4)],
    ),
}


def load(broker: Any) -> None:
    broker.produce(TOPICS)
