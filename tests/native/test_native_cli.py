"""`drillspark serve --user-port`: Drill's user port 31010 by default, left off with a note
when another process holds it; an explicit port must be free."""

from __future__ import annotations

import argparse

import pytest

from drillspark.cli import serve


class FakeServer:
    taken: set[int] = set()

    def __init__(self, spark, user_port=None, **kwargs):
        if user_port in self.taken:
            raise OSError(98, "Address already in use")
        self.user_port = user_port


def _args(**kw) -> argparse.Namespace:
    base = {"host": "127.0.0.1", "port": 0, "insecure_bind": False, "user_port": None}
    return argparse.Namespace(**{**base, **kw})


def _make(args):
    return serve._server(FakeServer, None, args, {}, None, None, None, None)


def test_default_is_drills_user_port(monkeypatch):
    monkeypatch.setattr(FakeServer, "taken", set())
    assert _make(_args()).user_port == 31010


def test_default_taken_leaves_it_off_with_a_note(monkeypatch, capsys):
    monkeypatch.setattr(FakeServer, "taken", {31010})
    assert _make(_args()).user_port is None
    assert "user port 31010 is in use" in capsys.readouterr().err


def test_explicit_ports(monkeypatch):
    monkeypatch.setattr(FakeServer, "taken", {31010})
    assert _make(_args(user_port=0)).user_port == 0
    assert _make(_args(user_port=-1)).user_port is None
    with pytest.raises(OSError):
        _make(_args(user_port=31010))  # asked for, taken: an error, not a silent fallback
