"""Rules of the source tree.

- JSON becomes text only through mediagen::to_json_text (include/mediagen/core/json_text.hpp):
  nlohmann's plain dump() throws on invalid UTF-8, and an exception there once ended the process.
- Coroutines are spawned with mediagen's contained completion (core/contain.hpp), never
  asio::detached, which drops an exception silently and skips the coroutine's clean-up.
- SQL and libpqxx live only in db/ and in stores (*_store.cpp, *_store.hpp): a handler or a
  service that holds SQL is a room with two doors.
- Order and item status names are written only by the state machine (orders/order_status.cpp)
  and the orders store; everywhere else names them through the enums.
- A refusal's status is fixed where it is made (ApiError's named constructors), and refusals
  leave a transaction as values, never thrown.
- Ids that are uuids (orders, items, templates, clones, lease tokens) are parsed once, where they
  enter, into their types (core/uuid_id.hpp): is_uuid is called by those parsers only.
- Task types are parsed once into TaskType (core/task_type.hpp): no code compares a task type's
  name as a string.
- No source file over 400 lines and no function over 80 lines (functions defined at the start
  of a line, which is how this tree writes them; members defined inside a class are not seen).
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
SQL = re.compile(r"\bpqxx::|#include <pqxx/|\bdb::Statement\b|\.exec(_raw|_prepared|_params)?\(")
STATUS_NAMES = ("created", "pending", "in_progress", "completed", "result_delivered", "failed", "compensated",
                "cancelled", "partially_completed", "processing", "policy_flagged")
STATUS_LITERAL = re.compile(r"[\"'](" + "|".join(STATUS_NAMES) + r")[\"']")
REFUSAL_BY_CALLER = re.compile(r"\brefusal\(\s*int\b|\brefusal\(\s*\d|throw\s+Refused\b")
UUID_CHECK = re.compile(r"\bis_uuid\(")
ID_PARSERS = {os.path.join("include", "mediagen", "core", "uuid.hpp"), os.path.join("src", "core", "uuid.cpp"),
              os.path.join("include", "mediagen", "core", "uuid_id.hpp")}
TASK_TYPES = "tts|image|txt2img|remix|image_edit|voice_clone|sfx|music|voice_search"
TASK_TYPE_COMPARE = re.compile(r'(==|!=)\s*"(' + TASK_TYPES + r')"|"(' + TASK_TYPES + r')"\s*(==|!=)|'
                               r'\btask_type\w*\s*(==|!=)\s*"')
TASK_TYPE_NAMES = {os.path.join("src", "core", "task_type.cpp")}
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 80


def sources():
    for top in ("src", "include"):
        for base, _dirs, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith((".cpp", ".hpp", ".h", ".cc")):
                    path = os.path.join(base, f)
                    with open(path, encoding="utf-8") as fh:
                        yield os.path.relpath(path, ROOT), COMMENT.sub("", fh.read())


def is_store(rel):
    name = os.path.basename(rel)
    return (rel.startswith(os.path.join("src", "db") + os.sep) or rel.startswith(os.path.join("include", "mediagen", "db"))
            or name.endswith(("_store.cpp", "_store.hpp")))


def may_name_statuses(rel):
    # The state machine, the orders store, and the preview (whose own "processing" is not an
    # order status); voice clones have statuses of the same names, named only by their own
    # state machine and store (and read by the templates catalogue store); so do subscriptions
    # ("active", "cancelled"), named only by the usage store that derives them; and gift codes
    # ("cancelled"), named only by their status file and the reseller store. OpenAI's model
    # objects carry a "created" time, written by the compatible surface's service.
    return (rel == os.path.join("src", "orders", "order", "order_status.cpp")
            or rel in {os.path.join("src", "voices", "clone_status.cpp"),
                       os.path.join("src", "voices", "clone_store.cpp"),
                       os.path.join("src", "billing", "usage_store.cpp"),
                       os.path.join("src", "reseller", "gift_code_status.cpp"),
                       os.path.join("src", "reseller", "reseller_store.cpp"),
                       os.path.join("src", "compat", "compat_service.cpp"),
                       # Webhook messages: their status file and the outbox's two stores.
                       os.path.join("src", "webhooks", "message_status.cpp"),
                       os.path.join("src", "webhooks", "outbox_store.cpp"),
                       os.path.join("src", "webhooks", "webhook_store.cpp")}
            or (rel.startswith(os.path.join("src", "orders")) and is_store(rel))
            or rel in {os.path.join("src", "orders", "preview", "preview.cpp")})


def long_functions(text):
    """(first line, length) of every function whose body opens at the end of a line that starts
    at column 0 and closes with a '}' at column 0."""
    out = []
    lines = text.split("\n")
    start = None
    for i, line in enumerate(lines):
        if start is None:
            head = line.split("(", 1)[0]
            if line[:1].isalpha() and line.rstrip().endswith("{") and "(" in line and " = " not in head and \
                    not line.startswith(("namespace", "struct", "class", "enum", "union", "extern", "template")):
                start = i
        elif line.startswith("}"):
            if i - start - 1 > MAX_FUNCTION_LINES:
                out.append((start + 1, i - start - 1))
            start = None
    return out


def violations(pattern, allowed=frozenset(), skip=lambda rel: False):
    found = []
    for rel, text in sources():
        if rel in allowed or skip(rel):
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

    def test_sql_only_in_stores_and_db(self):
        self.assertEqual(violations(SQL, skip=is_store), [],
                         "SQL and libpqxx belong in a *_store.cpp of the domain (or in db/)")

    def test_status_names_only_in_the_state_machine_and_its_store(self):
        self.assertEqual(violations(STATUS_LITERAL, skip=may_name_statuses), [],
                         "name order and item statuses through orders::OrderStatus / ItemStatus (order_status.hpp)")

    def test_refusals_are_values_with_their_status(self):
        self.assertEqual(violations(REFUSAL_BY_CALLER), [],
                         "use ApiError::refused(Reason) or a named constructor, and return it")

    def test_uuid_shapes_are_checked_only_by_the_id_parsers(self):
        self.assertEqual(violations(UUID_CHECK, ID_PARSERS), [],
                         "parse the id where it enters: OrderId::parse, TemplateId::parse ... (core/uuid_id.hpp)")

    def test_task_types_are_compared_as_values(self):
        self.assertEqual(violations(TASK_TYPE_COMPARE, TASK_TYPE_NAMES), [],
                         "compare TaskType values (core/task_type.hpp), parsed once where the name enters")

    def test_files_and_functions_stay_small(self):
        too_long = []
        for rel, text in sources():
            lines = text.count("\n")
            if lines > MAX_FILE_LINES:
                too_long.append(f"{rel}: {lines} lines")
            too_long += [f"{rel}:{line}: function of {n} lines" for line, n in long_functions(text)]
        self.assertEqual(too_long, [])

    def test_the_rules_see_a_violation(self):
        self.assertTrue(SQL.search('db.exec(tx, kClaim, id);'))
        self.assertTrue(SQL.search('const db::Statement kX{"x", "SELECT 1"};'))
        self.assertTrue(STATUS_LITERAL.search("UPDATE orders SET status = 'failed'"))
        self.assertTrue(STATUS_LITERAL.search('changes.push_back({id, "in_progress"});'))
        self.assertFalse(STATUS_LITERAL.search('to_string(OrderStatus::in_progress)'))
        self.assertTrue(REFUSAL_BY_CALLER.search("ApiError::refusal(422, Reason::x)"))
        self.assertTrue(REFUSAL_BY_CALLER.search("throw Refused{e};"))
        body = "int f() {\n" + "  x();\n" * (MAX_FUNCTION_LINES + 1) + "}\n"
        self.assertEqual(long_functions(body), [(1, MAX_FUNCTION_LINES + 1)])
        self.assertEqual(long_functions("int f() {\n  x();\n}\n"), [])
        table = "constexpr std::array kT = std::to_array<E>({\n" + "  {1},\n" * (MAX_FUNCTION_LINES + 1) + "});\n"
        self.assertEqual(long_functions(table), [])
        self.assertTrue(is_store(os.path.join("src", "orders", "items", "item_store.cpp")))
        self.assertFalse(is_store(os.path.join("src", "orders", "items", "item_service.cpp")))
        self.assertTrue(DUMP.search('std::string s = j.dump();'))
        self.assertTrue(UUID_CHECK.search('if (!is_uuid(order_id)) return ApiError::not_found();'))
        self.assertTrue(TASK_TYPE_COMPARE.search('if (order.task_type == "tts") {'))
        self.assertTrue(TASK_TYPE_COMPARE.search('return "sfx" == kind;'))
        self.assertTrue(TASK_TYPE_COMPARE.search('r.task_type != "voice_search"'))
        self.assertFalse(TASK_TYPE_COMPARE.search('if (order.task_type == TaskType::tts) {'))
        self.assertTrue(DETACHED.search('co_spawn(ex, f(), asio::detached);'))
        self.assertFalse(DUMP.search(COMMENT.sub("", "x(); // j.dump()")))


if __name__ == "__main__":
    unittest.main()
