"""The documents the `mongo` plugin's tests read (and Drill 1.22 was asked about), as MongoDB
Extended JSON (no Decimal128: FerretDB 1.24 refuses it), loaded into a server through the MongoDB Java driver (the one drillspark uses)."""

from __future__ import annotations

import json
from typing import Any

DOCUMENTS: dict[str, dict[str, list[str]]] = {
    "shop": {
        "orders": [
            '{"_id": {"$oid": "65a1b2c3d4e5f60718293a4b"}, "n": 1, "big": {"$numberLong": '
            '"9007199254740993"}, "price": 1.5, "at": {"$date": "2024-01-02T03:04:05.678Z"}, "raw": {"$binary": {"base64": "AQID", '
            '"subType": "00"}}, "name": "pen", "ok": true, "none": null, '
            '"customer": {"id": "c1", "tier": 2}, "tags": ["a", "b"]}',
            '{"_id": {"$oid": "65a1b2c3d4e5f60718293a4c"}, "n": 2, "big": {"$numberLong": "2"}, '
            '"price": 20.0, "at": {"$date": "2024-06-30T23:59:59Z"}, "raw": {"$binary": {"base64": "", '
            '"subType": "00"}}, "name": "ink", "ok": false, "none": null, '
            '"customer": {"id": "c2", "tier": 1}, "tags": []}',
        ],
        "people": [
            '{"_id": 1, "name": "ann", "langs": ["en", "fr"]}',
            '{"_id": 2, "name": "bob", "address": {"city": "Oslo"}}',
            '{"_id": 3, "name": "cy", "langs": ["de"], "address": {"city": "Rome", "zip": "00100"}}',
        ],
    },
    "crm": {"accounts": ['{"_id": "a1", "owner": "zoe"}'], "contacts": []},
}


def _contact(i: int) -> str:
    """The push-down tests' documents: integers, strings, a double, a nested map; every fifth
    without `qty`, one with `qty` null."""
    doc: dict[str, object] = {"_id": i, "sku": f"s{i:02d}", "kind": "abc"[i % 3], "price": i * 1.25}
    if i % 5:
        doc["qty"] = i % 7
    if i == 7:
        doc["qty"] = None
    doc["dim"] = {"w": i % 4, "tag": f"t{i % 2}"}
    return json.dumps(doc)


# 25 documents with integer _ids: three pages of 10 when a page holds 10
DOCUMENTS["crm"]["contacts"] = [_contact(i) for i in range(1, 26)]
# _ids of two kinds: a range query compares one kind only, so this collection is one page
DOCUMENTS["crm"]["mixed"] = [
    json.dumps({"_id": i if i % 2 else f"k{i}", "v": i}) for i in range(12)
]
# a field spelled two ways (one column for Drill's names) and one of mixed kinds: neither can
# be asked of the server, which matches names exactly and compares values of one kind
DOCUMENTS["crm"]["drift"] = [
    '{"_id": {"$oid": "65a1b2c3d4e5f60718293a01"}, "qty": 1, "mix": 1}',
    '{"_id": {"$oid": "65a1b2c3d4e5f60718293a02"}, "QTY": 2, "mix": "2"}',
    '{"_id": {"$oid": "65a1b2c3d4e5f60718293a03"}, "qty": 3, "mix": 3}',
]


def load(jvm: Any, uri: str) -> None:
    """Each collection dropped and filled with its documents."""
    client = jvm.com.mongodb.client.MongoClients.create(uri)
    try:
        for db, collections in DOCUMENTS.items():
            database = client.getDatabase(db)
            for name, docs in collections.items():
                coll = database.getCollection(name)
                coll.drop()
                batch = jvm.java.util.ArrayList()
                for doc in docs:
                    batch.add(jvm.org.bson.Document.parse(doc))
                coll.insertMany(batch)
    finally:
        client.close()
