"""The documents the `mongo` plugin's tests read (and Drill 1.22 was asked about), as MongoDB
Extended JSON (no Decimal128: FerretDB 1.24 refuses it), loaded into a server through the MongoDB Java driver (the one drillspark uses)."""

from __future__ import annotations

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
    "crm": {"accounts": ['{"_id": "a1", "owner": "zoe"}']},
}


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
