"""The soak's end: wait for the work it started to finish, then the checks that say the run held
(the reliability research's invariants, every 201's order, every finished order's files, every
hooked order's final event, the servers' health)."""

import json
import time

from orders_support import TERMINAL_ORDER_STATUSES, invariant_checks

TERMINAL_SQL = ", ".join(f"'{s}'" for s in TERMINAL_ORDER_STATUSES)
SETTLE_SECONDS = 300.0


def settle(h, user_id, problems):
    """Waits until the account has no unfinished order and the webhook outbox is empty."""
    deadline = time.monotonic() + SETTLE_SECONDS
    left = None
    while time.monotonic() < deadline:
        left = h.psql_value(
            f"SELECT (SELECT count(*) FROM orders WHERE user_id = {user_id} AND status NOT IN ({TERMINAL_SQL}))"
            " || ',' || (SELECT count(*) FROM webhook_messages WHERE status = 'pending')")
        if left == "0,0":
            return
        time.sleep(1.0)
    problems.append(f"work still unfinished {SETTLE_SECONDS:.0f} s after the load stopped "
                    f"(orders, pending webhook messages): {left}")


def final_checks(h, servers, user_id, stats, load, receiver, problems):
    """Appends each broken promise to `problems`; returns the report's lines."""
    lines = []
    for s in servers:
        if not s.alive():
            problems.append(f"{s.name} died: {s.log_tail(40)}")
        problems.extend(s.standing_rule_breaks())
    if stats.server_errors or stats.transport_errors or stats.unexpected_count:
        problems.append(f"{stats.server_errors} answers were 5xx, {stats.transport_errors} requests failed in "
                        f"transport, {stats.unexpected_count} answers were not their route's expected status; "
                        f"first ones: {stats.unexpected[:10]}")
    for name, sql in invariant_checks():
        rows = h.psql(sql).strip()
        if rows:
            problems.append(f"invariant {name}: {rows[:300]}")
    lines.append(orders_check(h, user_id, load, problems))
    lines.append(files_check(h, user_id, problems))
    lines.append(webhooks_check(h, user_id, load, receiver, problems))
    by_kind = {}
    for (kind, status), n in sorted(stats.statuses.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        by_kind.setdefault(kind, []).append(f"{status}x{n}")
    lines.append("answers: " + "; ".join(f"{k} {' '.join(v)}" for k, v in by_kind.items()))
    open_sockets = sum(1 for sock in load.sockets if not sock.closed)
    events = sum(len(sock.events) for sock in load.sockets)
    lines.append(f"realtime: {open_sockets} of {len(load.sockets)} subscribers open at the end, "
                 f"{sum(load.subscribed.values())} order channels joined, {events} events received")
    if open_sockets != len(load.sockets):
        problems.append(f"{len(load.sockets) - open_sockets} realtime subscribers were closed by the server")
    return lines


def orders_check(h, user_id, load, problems):
    rows = h.psql_rows(f"SELECT id, status FROM orders WHERE user_id = {user_id}")
    stored = {r[0]: r[1] for r in rows}
    missing = [o for o in load.created if o not in stored]
    if missing:
        problems.append(f"{len(missing)} orders answered 201 but are not stored: {missing[:5]}")
    counts = {}
    for status in stored.values():
        counts[status] = counts.get(status, 0) + 1
    return (f"orders: {len(load.created)} answered 201 on POST /orders, {len(stored)} stored for the account "
            f"(the compatible surfaces' included): {counts}")


def files_check(h, user_id, problems):
    rows = h.psql_rows(f"SELECT id, result_files::text, result_service_files::text FROM orders "
                       f"WHERE user_id = {user_id} AND status IN ('completed', 'result_delivered')")
    present = set(h.files.list(""))
    wanted = 0
    lacking = []
    for order, files, service in rows:
        paths = json.loads(files) + json.loads(service)
        wanted += len(paths)
        lacking += [(order, p) for p in paths if p not in present]
    if lacking:
        problems.append(f"{len(lacking)} files of finished orders are not in the store: {lacking[:5]}")
    return f"files: {len(rows)} finished orders name {wanted} files, all in the store" if not lacking else \
        f"files: {len(lacking)} of {wanted} missing"


def webhooks_check(h, user_id, load, receiver, problems):
    hooked = [o for o, has in load.created.items() if has]
    final = {}
    for d in receiver.log("/ok/soak"):
        body = json.loads(d["body"])
        if body.get("type") == "order.updated":
            data = body["data"]
            final.setdefault(data["order_id"], set()).add(data["status"])
    statuses = dict(h.psql_rows(f"SELECT id, status FROM orders WHERE user_id = {user_id}"))
    missed = [o for o in hooked if statuses.get(o) not in final.get(o, set())]
    if missed:
        problems.append(f"{len(missed)} of {len(hooked)} hooked orders got no delivery of their final status: "
                        f"{[(o, statuses.get(o), sorted(final.get(o, []))) for o in missed[:5]]}")
    return f"webhooks: {len(hooked)} orders with a webhook, each got its final status" if not missed else \
        f"webhooks: {len(missed)} of {len(hooked)} missed their final status"
