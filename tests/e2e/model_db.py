"""Reads of the seeded model test (test_model.py): one psql kept open, and every invariant check of
tests/integration/invariants.sql in one statement."""

import os
import select
import subprocess
import time

from orders_support import invariant_checks
from programs import program


def combined_invariants():
    """One statement counting the rows of every invariant check (one psql call per step)."""
    checks = invariant_checks()
    parts = [f"SELECT {i} AS n, (SELECT count(*) FROM ({sql.strip().rstrip(';')}) x) AS rows"
             for i, (_, sql) in enumerate(checks)]
    return checks, " UNION ALL ".join(parts)


class PsqlSession:
    """One psql kept open for the many reads of a run: a psql process per read costs about
    150 ms on a loaded machine. Reads only, so one that meets a broken connection (after a
    PostgreSQL crash-restart) is asked again of a new psql."""

    END = "__model_read_end__"

    def __init__(self, url):
        self.url = url
        self.proc = None
        self.buf = b""

    def close(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc.stdin.close()
            self.proc.stdout.close()
        self.proc = None

    def rows(self, sql, timeout=60.0):
        for attempt in (1, 2):
            if self.proc is None:
                self.proc = subprocess.Popen([program("psql"), "-X", "-q", "-A", "-t", "-F", "\t", "-d", self.url],
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                self.buf = b""
            try:
                lines = self._ask(sql, timeout)
            except (OSError, EOFError) as e:
                lines = [f"psql: {e}"]
            errors = [x for x in lines if x.startswith(("psql:", "ERROR:", "FATAL:", "server closed", "connection"))]
            if not errors:
                return [x.split("\t") for x in lines]
            self.close()
            if attempt == 2:
                raise AssertionError(f"psql failed for {sql!r}: {errors}")
        return []

    def value(self, sql):
        rows = self.rows(sql)
        return rows[0][0] if rows else ""

    def _ask(self, sql, timeout):
        self.proc.stdin.write((sql.strip().rstrip(";") + ";\n\\echo " + self.END + "\n").encode())
        self.proc.stdin.flush()
        end = (self.END + "\n").encode()
        deadline = time.monotonic() + timeout
        while end not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                raise OSError(f"no answer within {timeout}s")
            data = os.read(self.proc.stdout.fileno(), 65536)
            if not data:
                raise EOFError("psql exited")
            self.buf += data
        text, _, self.buf = self.buf.partition(end)
        return [x for x in text.decode("utf-8", "replace").splitlines() if x != ""]

    def psql_value(self, sql):  # what orders_support.ledger_snapshot asks of a harness
        return self.value(sql)
