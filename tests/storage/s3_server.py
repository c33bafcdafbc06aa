"""A real S3-compatible server for the `file` plugin's s3a:// tests: moto's server mode (PyPI
`moto[server]`), started as its own process on a free loopback port and stopped by its process
id. Its buckets live in that process's memory; each test session gets a fresh one."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from typing import Any

# moto accepts any key pair unless IAM checks are on; the tests' plugins use these
ACCESS_KEY = "AKIADRILLSPARKTEST01"
SECRET_KEY = "drillspark-secret-Zq8v3WmXk2"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class S3Server:
    process: subprocess.Popen
    port: int

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name="us-east-1",
        )

    def plugin(self, bucket: str, workspaces: dict[str, Any] | None = None) -> dict[str, Any]:
        """Drill's `file` plugin config for `bucket` on this server."""
        return {
            "type": "file",
            "connection": f"s3a://{bucket}",
            "config": {
                "fs.s3a.endpoint": self.endpoint,
                "fs.s3a.endpoint.region": "us-east-1",
                "fs.s3a.access.key": ACCESS_KEY,
                "fs.s3a.secret.key": SECRET_KEY,
                "fs.s3a.path.style.access": "true",
                "fs.s3a.connection.ssl.enabled": "false",
                # a missing bucket or a refused request fails at once, not after minutes
                "fs.s3a.attempts.maximum": "1",
                "fs.s3a.retry.limit": "1",
            },
            "workspaces": workspaces or {"root": {"location": "/", "writable": False}},
            "formats": {
                "json": {"type": "json", "extensions": ["json"]},
                "csv": {"type": "text", "extensions": ["csv"], "delimiter": ","},
                "parquet": {"type": "parquet"},
            },
        }

    def put(self, bucket: str, key: str, body: bytes | str) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.client().put_object(Bucket=bucket, Key=key, Body=data)

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        found = self.client().list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", [])
        return sorted(o["Key"] for o in found)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()


def start() -> S3Server:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = S3Server(process, port)
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{server.endpoint}/moto-api/", timeout=2):
                return server
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(f"moto's S3 server did not start on port {port}") from None
            time.sleep(0.2)


def require_auth(server: S3Server, bucket_names: list[str]) -> tuple[str, str]:
    """Turn on moto's request signing checks (its IAM authentication): an IAM user allowed
    `s3:*` gets an access key; `bucket_names` are created; from then on a request signed with
    another key pair is refused (403), as S3 refuses it. Returns the user's key pair."""
    import boto3

    iam = boto3.client(
        "iam",
        endpoint_url=server.endpoint,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        region_name="us-east-1",
    )
    iam.create_user(UserName="drill")
    policy = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}],
    }
    iam.put_user_policy(UserName="drill", PolicyName="s3", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName="drill")["AccessKey"]
    client = boto3.client(
        "s3",
        endpoint_url=server.endpoint,
        aws_access_key_id=key["AccessKeyId"],
        aws_secret_access_key=key["SecretAccessKey"],
        region_name="us-east-1",
    )
    for name in bucket_names:
        client.create_bucket(Bucket=name)
    request = urllib.request.Request(
        f"{server.endpoint}/moto-api/reset-auth",
        data=b"0",
        method="POST",
        headers={"Content-Type": "text/plain"},  # (a form body would not reach moto as data)
    )
    with urllib.request.urlopen(request, timeout=10):
        pass
    return key["AccessKeyId"], key["SecretAccessKey"]
