"""Rules of the source tree that keep remote input from stopping the server.

- JSON becomes text only through mediagen::to_json_text (include/mediagen/core/json_text.hpp):
  nlohmann's plain dump() throws on invalid UTF-8, and an exception there once ended the process.
- Coroutines are spawned with mediagen's contained completion (core/contain.hpp), never
  asio::detached, which drops an exception silently and skips the coroutine's clean-up.
"""

from __future__ import annotations

import os
import re
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ALLOWED_DUMP = {os.path.join("include", "mediagen", "core", "json_text.hpp")}
DUMP = re.compile(r"\.dump\(")
DETACHED = re.compile(r"\bdetached\b")
COMMENT = re.compile(r"//.*$", re.M)


def sources():
    for top in ("src", "include"):
        for base, _dirs, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith((".cpp", ".hpp", ".h", ".cc")):
                    path = os.path.join(base, f)
                    with open(path, encoding="utf-8") as fh:
                        yield os.path.relpath(path, ROOT), COMMENT.sub("", fh.read())


def violations(pattern, allowed=frozenset()):
    found = []
    for rel, text in sources():
        if rel in allowed:
            continue
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{rel}:{line}")
    return found


class SourceRulesTest(unittest.TestCase):
    def test_json_text_only_through_the_helper(self):
        self.assertEqual(violations(DUMP, ALLOWED_DUMP), [],
                         "use mediagen::to_json_text (core/json_text.hpp) instead of dump()")

    def test_no_coroutine_is_spawned_detached(self):
        self.assertEqual(violations(DETACHED), [],
                         "spawn with mediagen::contained(counters, boundary) (core/contain.hpp), not asio::detached")

    def test_the_rules_see_a_violation(self):
        self.assertTrue(DUMP.search('std::string s = j.dump();'))
        self.assertTrue(DETACHED.search('co_spawn(ex, f(), asio::detached);'))
        self.assertFalse(DUMP.search(COMMENT.sub("", "x(); // j.dump()")))


if __name__ == "__main__":
    unittest.main()
