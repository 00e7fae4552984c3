"""Migrations: `mediagen migrate` idempotence and concurrent `mediagen serve` start-up on a fresh database."""

import subprocess
import unittest

from harness import E2ETestCase, Harness

TABLES = ("users", "api_keys", "currency_assets", "ledger_accounts", "ledger_txns", "ledger_entries", "orders", "order_items", "schema_migrations")
MIGRATIONS_SQL = "SELECT version, name, applied_at FROM schema_migrations ORDER BY version"
COLUMNS_SQL = ("SELECT table_name, column_name, data_type, is_nullable, column_default "
               "FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2")


class MigrationChecks:

    def assertMigratedOnce(self, h):
        rows = h.psql_rows("SELECT version::text, count(*) FROM schema_migrations GROUP BY version ORDER BY version")
        self.assertTrue(rows, "schema_migrations is empty")
        for version, count in rows:
            self.assertEqual(count, "1", f"migration {version} recorded {count} times")
        for table in TABLES:
            self.assertEqual(h.psql_value(f"SELECT to_regclass('public.{table}') IS NOT NULL"), "t",
                             f"table {table} missing")


class ConcurrentServeTests(E2ETestCase, MigrationChecks):
    start_server = False
    migrate_first = False

    def test_two_servers_start_together_on_fresh_db(self):
        a = self.h.start_server(wait=False, name="serve-a")
        b = self.h.start_server(wait=False, name="serve-b")
        a.wait_listening()
        b.wait_listening()
        self.assertMigratedOnce(self.h)
        user, key = self.h.user_and_key("full")
        for s in (a, b):
            with self.subTest(server=s.name):
                self.assertEqual(s.request("GET", "/healthz").status, 200)
                r = s.admin_get("/readyz")
                self.assertEqual(r.status, 200, r)
                data = self.assertSuccess(s.api("GET", "/user", key["key"]))
                self.assertEqual(data["id"], user["id"])
        a.stop_checked()
        b.stop_checked()
        self.assertMigratedOnce(self.h)

    def test_two_migrate_commands_together(self):
        h = Harness("concurrent-migrate")
        try:
            h.setup(migrate=False)
            procs = [subprocess.Popen([h.bin, "migrate"], env=h.env(), stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True) for _ in range(3)]
            results = [p.communicate(timeout=60) + (p.returncode,) for p in procs]
            for out, err, code in results:
                self.assertEqual(code, 0, f"concurrent migrate failed: {err.strip()}")
            self.assertMigratedOnce(h)
        finally:
            h.teardown()


class MigrateCommandTests(E2ETestCase, MigrationChecks):
    start_server = False
    migrate_first = False

    def test_migrate_twice_then_serve(self):
        first = self.h.run_cli("migrate")
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertMigratedOnce(self.h)
        applied = self.h.psql(MIGRATIONS_SQL)
        columns = self.h.psql(COLUMNS_SQL)

        second = self.h.run_cli("migrate")
        self.assertEqual(second.returncode, 0, second.stderr)
        self.assertEqual(self.h.psql(MIGRATIONS_SQL), applied, "second migrate changed schema_migrations")
        self.assertEqual(self.h.psql(COLUMNS_SQL), columns, "second migrate changed the schema")

        s = self.h.start_server()
        self.assertEqual(self.h.psql(MIGRATIONS_SQL), applied, "serve re-applied migrations")
        s.stop_checked()

        s = self.h.start_server(args=("--no-migrate",))
        user, key = self.h.user_and_key("full")
        self.assertSuccess(s.api("GET", "/user", key["key"]))
        s.stop_checked()
        self.assertEqual(self.h.psql(MIGRATIONS_SQL), applied)

    def test_schema_migrations_columns(self):
        self.h.migrate()
        cols = {r[0] for r in self.h.psql_rows(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'schema_migrations'")}
        self.assertTrue({"version", "name", "applied_at"} <= cols, cols)


if __name__ == "__main__":
    unittest.main()
