"""The object store as the tests see it: a local folder or an S3 bucket, behind one interface.

With MEDIAGEN_E2E_STORAGE=s3 each test class gets a bucket of its own on the test S3 server
(scripts/lib/swift.sh: MEDIAGEN_TEST_S3_ENDPOINT, _REGION, _ACCESS_KEY, _SECRET_KEY) and its
servers run with MEDIAGEN_STORAGE_URL=s3://BUCKET/PREFIX and the AWS_* variables; without it,
with the folder MEDIAGEN_STORAGE_DIR as before. Tests read, write, list and delete stored files
through `harness.files` (LocalFiles or S3Files), whatever the store.

S3Client signs its requests with Signature V4 itself (standard library only), so what the tests
check in the bucket does not go through the code under test.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import http.client
import os
import urllib.parse
import xml.etree.ElementTree as ET

S3_ENV = ("MEDIAGEN_TEST_S3_ENDPOINT", "MEDIAGEN_TEST_S3_REGION", "MEDIAGEN_TEST_S3_ACCESS_KEY",
          "MEDIAGEN_TEST_S3_SECRET_KEY")
XMLNS = "{http://s3.amazonaws.com/doc/2006-03-01/}"
STORE_PREFIX = "store"


class S3Error(AssertionError):
    def __init__(self, what: str, status: int, body: bytes):
        super().__init__(f"{what}: HTTP {status}: {body[:600]!r}")
        self.status = status


def storage_kind() -> str:
    kind = os.environ.get("MEDIAGEN_E2E_STORAGE", "local")
    if kind not in ("local", "s3"):
        raise AssertionError(f"MEDIAGEN_E2E_STORAGE={kind!r}: expected local or s3")
    return kind


def _quote(text: str, safe: str = "") -> str:
    return urllib.parse.quote(text, safe="-_.~" + safe)


class S3Client:
    """Path-style S3 requests to one endpoint, signed with V4 (payload hashed, not UNSIGNED)."""

    def __init__(self, endpoint: str, region: str, access_key: str, secret_key: str, timeout: float = 30.0):
        u = urllib.parse.urlsplit(endpoint)
        if u.scheme != "http" or not u.hostname:
            raise AssertionError(f"S3 endpoint {endpoint!r}: expected http://host:port")
        self.endpoint, self.region = endpoint.rstrip("/"), region
        self.host, self.port = u.hostname, u.port or 80
        self.access_key, self.secret_key, self.timeout = access_key, secret_key, timeout

    @classmethod
    def from_env(cls) -> "S3Client":
        missing = [v for v in S3_ENV if not os.environ.get(v)]
        if missing:
            raise AssertionError("S3 tests need " + ", ".join(missing) + " (scripts/test exports them from "
                                 "scripts/lib/swift.sh)")
        return cls(*(os.environ[v] for v in S3_ENV))

    def with_secret(self, secret_key: str) -> "S3Client":
        return S3Client(self.endpoint, self.region, self.access_key, secret_key, self.timeout)

    # -- signing

    def _sign(self, method: str, path: str, query: list[tuple[str, str]], headers: dict, payload_hash: str):
        now = datetime.datetime.now(datetime.timezone.utc)
        amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
        headers.update({"host": f"{self.host}:{self.port}", "x-amz-date": amz_date,
                        "x-amz-content-sha256": payload_hash})
        signed = sorted(k.lower() for k in headers)
        canonical_headers = "".join(f"{k}:{str(headers[k]).strip()}\n" for k in signed)
        canonical_query = "&".join(f"{_quote(k)}={_quote(v)}" for k, v in sorted(query))
        request = "\n".join([method, _quote(path, "/"), canonical_query, canonical_headers, ";".join(signed),
                             payload_hash])
        scope = f"{day}/{self.region}/s3/aws4_request"
        to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(request.encode()).hexdigest()])
        key = ("AWS4" + self.secret_key).encode()
        for part in (day, self.region, "s3", "aws4_request"):
            key = hmac.new(key, part.encode(), hashlib.sha256).digest()
        signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential={self.access_key}/{scope}, "
                                    f"SignedHeaders={';'.join(signed)}, Signature={signature}")
        return canonical_query

    def request(self, method: str, bucket: str, key: str = "", query=(), headers=None, body: bytes = b""):
        """(status, {header: value}, body bytes) of one signed request."""
        path = f"/{bucket}" + (f"/{key}" if key else "")
        hdrs = {k.lower(): v for k, v in (headers or {}).items()}
        query_text = self._sign(method, path, list(query), hdrs, hashlib.sha256(body).hexdigest())
        target = _quote(path, "/") + (f"?{query_text}" if query_text else "")
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request(method, target, body=body or None, headers=hdrs)
            resp = conn.getresponse()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
        finally:
            conn.close()

    def expect(self, what: str, statuses, method: str, bucket: str, key: str = "", **kw):
        status, headers, body = self.request(method, bucket, key, **kw)
        if status not in statuses:
            raise S3Error(what, status, body)
        return status, headers, body

    # -- buckets and objects

    def create_bucket(self, bucket: str):
        self.expect(f"create bucket {bucket}", (200,), "PUT", bucket)

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        keys, token = [], None
        while True:
            query = [("list-type", "2"), ("prefix", prefix)] + ([("continuation-token", token)] if token else [])
            _, _, body = self.expect(f"list {bucket}/{prefix}", (200,), "GET", bucket, query=query)
            root = ET.fromstring(body)
            keys += [c.findtext(f"{XMLNS}Key") for c in root.iter(f"{XMLNS}Contents")]
            token = root.findtext(f"{XMLNS}NextContinuationToken")
            if root.findtext(f"{XMLNS}IsTruncated") != "true" or not token:
                return keys

    def uploads(self, bucket: str) -> list[tuple[str, str]]:
        """(key, upload id) of the multipart uploads begun and neither completed nor aborted."""
        _, _, body = self.expect(f"list uploads of {bucket}", (200,), "GET", bucket, query=[("uploads", "")])
        root = ET.fromstring(body)
        return [(u.findtext(f"{XMLNS}Key"), u.findtext(f"{XMLNS}UploadId")) for u in root.iter(f"{XMLNS}Upload")]

    def remove_bucket(self, bucket: str):
        for key, upload in self.uploads(bucket):
            self.expect(f"abort {key}", (204, 404), "DELETE", bucket, key, query=[("uploadId", upload)])
        for key in self.keys(bucket):
            self.expect(f"delete {key}", (204, 404), "DELETE", bucket, key)
        self.expect(f"delete bucket {bucket}", (204, 404), "DELETE", bucket)


class LocalFiles:
    """The stored files of a folder store (MEDIAGEN_STORAGE_DIR)."""

    kind = "local"

    def __init__(self, root: str):
        self.root = root

    def _path(self, key: str) -> str:
        return os.path.join(self.root, key)

    def write(self, key: str, data: bytes):
        os.makedirs(os.path.dirname(self._path(key)), exist_ok=True)
        # Rewrites the file in place (same inode): a reader holding it open sees the change.
        with open(self._path(key), "wb") as f:
            f.write(data)

    def read(self, key: str) -> bytes | None:
        try:
            with open(self._path(key), "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def exists(self, key: str) -> bool:
        return os.path.isfile(self._path(key))

    def list(self, prefix: str) -> list[str]:
        out = []
        for base, _, names in os.walk(self.root):
            for name in names:
                rel = os.path.relpath(os.path.join(base, name), self.root)
                if rel.startswith(prefix):
                    out.append(rel)
        return sorted(out)

    def delete(self, key: str):
        os.remove(self._path(key))

    def server_env(self) -> dict:
        return {"MEDIAGEN_STORAGE_DIR": self.root, "MEDIAGEN_STORAGE_URL": None}

    def remove_all(self):
        pass  # the folder is the harness's own and goes with it


class S3Files:
    """The stored files of an S3 store: objects PREFIX/key of one bucket."""

    kind = "s3"

    def __init__(self, client: S3Client, bucket: str, prefix: str = STORE_PREFIX):
        self.client, self.bucket, self.prefix = client, bucket, prefix

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def create(self):
        self.client.create_bucket(self.bucket)
        return self

    def write(self, key: str, data: bytes):
        self.client.expect(f"put {key}", (200,), "PUT", self.bucket, self._key(key), body=data)

    def read(self, key: str) -> bytes | None:
        status, _, body = self.client.expect(f"get {key}", (200, 404), "GET", self.bucket, self._key(key))
        return body if status == 200 else None

    def exists(self, key: str) -> bool:
        status, _, _ = self.client.expect(f"head {key}", (200, 404), "HEAD", self.bucket, self._key(key))
        return status == 200

    def list(self, prefix: str) -> list[str]:
        cut = len(self.prefix) + 1 if self.prefix else 0
        return sorted(k[cut:] for k in self.client.keys(self.bucket, self._key(prefix)))

    def delete(self, key: str):
        self.client.expect(f"delete {key}", (204,), "DELETE", self.bucket, self._key(key))

    def url(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"

    def server_env(self, secret_key: str | None = None) -> dict:
        c = self.client
        return {"MEDIAGEN_STORAGE_URL": self.url(), "AWS_ENDPOINT_URL": c.endpoint, "AWS_REGION": c.region,
                "AWS_ACCESS_KEY_ID": c.access_key, "AWS_SECRET_ACCESS_KEY": secret_key or c.secret_key}

    def remove_all(self):
        self.client.remove_bucket(self.bucket)
