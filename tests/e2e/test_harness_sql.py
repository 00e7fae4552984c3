"""The harness's SQL client (pgwire.py) keeps a session between calls: what a call leaves behind
must not reach the next one, as with a `psql -c` per call, and a session the server ended while it
was kept must not fail the next call. No server: a database of its own."""

import unittest

import pgwire
from harness import Harness


class HarnessSqlSessions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.h = Harness(cls.__name__).setup(migrate=False)
        cls.h.psql("CREATE TABLE notes (body text NOT NULL)")

    @classmethod
    def tearDownClass(cls):
        cls.h.teardown()

    def test_calls_share_one_backend(self):
        first = self.h.psql_value("SELECT pg_backend_pid()")
        self.assertEqual(self.h.psql_value("SELECT pg_backend_pid()"), first)
        self.assertEqual(self.h.psql_value(
            "SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()"), pgwire.APPLICATION_NAME)

    def test_settings_and_temporary_tables_end_with_the_call(self):
        default = self.h.psql_value("SHOW statement_timeout")
        self.h.psql("SET statement_timeout = 4321; CREATE TEMPORARY TABLE scratch (n int)")
        self.assertEqual(self.h.psql_value("SHOW statement_timeout"), default)
        self.assertEqual(self.h.psql_value("SELECT to_regclass('pg_temp.scratch') IS NULL"), "t")

    def test_a_transaction_left_open_is_rolled_back(self):
        first = self.h.psql_value("SELECT pg_backend_pid()")
        self.h.psql("BEGIN; INSERT INTO notes VALUES ('left open')")
        self.assertEqual(self.h.psql_value("SELECT count(*) FROM notes WHERE body = 'left open'"), "0")
        self.assertNotEqual(self.h.psql_value("SELECT pg_backend_pid()"), first)

    def test_an_sql_error_reads_as_psql_and_keeps_the_session(self):
        first = self.h.psql_value("SELECT pg_backend_pid()")
        with self.assertRaises(AssertionError) as caught:
            self.h.psql("INSERT INTO notes VALUES (NULL)")
        self.assertIn('ERROR:  null value in column "body"', str(caught.exception))
        self.assertEqual(self.h.psql_value("SELECT pg_backend_pid()"), first)
        self.assertEqual(self.h.psql_value("SELECT count(*) FROM notes WHERE body IS NULL"), "0")

    def test_a_session_ended_while_kept_is_replaced(self):
        first = self.h.psql_value("SELECT pg_backend_pid()")
        self.assertEqual(self.h.admin_psql(f"SELECT pg_terminate_backend({first})").strip(), "t")
        self.assertEqual(self.h.psql_value("SELECT 1"), "1")
        self.assertNotEqual(self.h.psql_value("SELECT pg_backend_pid()"), first)

    def test_listens_and_advisory_locks_end_with_the_call(self):
        self.h.psql("LISTEN harness_channel; SELECT pg_advisory_lock(77)")
        self.assertEqual(self.h.psql_value(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 77"), "0")
        self.assertEqual(self.h.psql_value("SELECT count(*) FROM pg_listening_channels()"), "0")


if __name__ == "__main__":
    unittest.main()
