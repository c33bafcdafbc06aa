"""The server attack tests (test_server_*.py) run against the real server fixtures of
tests/server: `server` (no users) and `auth_server` (alice, an admin, and bob)."""

from tests.server.conftest import auth_server, server, users_file  # noqa: F401
