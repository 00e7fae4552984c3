"""Helpers of the chaos modules (test_chaos_money, test_chaos_crash): sizes chosen by the
environment, bursts of requests over keep-alive connections, and the money of a cancelled order
read back from the ledger.

MEDIAGEN_CHAOS=full gives the sizes of the reliability research; unset, the smaller CI sizes."""

import http.client
import json
import os
import threading
import time

from orders_support import sql_ids

FULL = os.environ.get("MEDIAGEN_CHAOS", "") == "full"


def size(ci, full):
    """The CI size, or the full one under MEDIAGEN_CHAOS=full."""
    return full if FULL else ci


def figure(name, started, **values):
    """One line per test: what ran, what came back, how long it took."""
    parts = " ".join(f"{k}={v}" for k, v in values.items())
    print(f"\nFIGURE {name}: {'full' if FULL else 'ci'} {parts} seconds={time.monotonic() - started:.1f}",
          flush=True)


class Answer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body
        self.server = None  # index into burst()'s servers of the process that answered

    def __repr__(self):
        return f"<{self.status} {self.body!r}>"


def _send(conn, method, path, headers, body):
    data = None if body is None else json.dumps(body).encode("utf-8")
    hdrs = dict(headers)
    if data is not None:
        hdrs["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=hdrs)
    resp = conn.getresponse()
    raw = resp.read()
    headers = {k.lower(): v for k, v in resp.getheaders()}
    try:
        parsed = json.loads(raw.decode("utf-8")) if raw else None
    except (ValueError, UnicodeDecodeError):
        parsed = raw
    return Answer(resp.status, headers, parsed)


def burst(servers, connections, requests, timeout=120.0):
    """Sends every (method, path, headers, body) of `requests` over `connections` keep-alive
    connections, spread evenly over `servers`; all connections are opened before the first request
    goes out. Returns the answers in request order (an exception text where none came back)."""
    answers = [None] * len(requests)
    next_index = [0]
    lock = threading.Lock()
    conns = []
    for n in range(connections):
        host, port = servers[n % len(servers)].public
        c = http.client.HTTPConnection(host, port, timeout=timeout)
        c.connect()
        conns.append(c)
    start = threading.Barrier(connections)

    def run(n, conn):
        start.wait()
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= len(requests):
                return
            try:
                answers[i] = _send(conn, *requests[i])
                answers[i].server = n % len(servers)
            except (OSError, http.client.HTTPException) as e:
                answers[i] = f"{type(e).__name__}: {e}"
                conn.close()  # reconnects on the next request

    threads = [threading.Thread(target=run, args=(n, c)) for n, c in enumerate(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c in conns:
        c.close()
    return answers


def codes(answers):
    """{status (or error text): count}"""
    out = {}
    for a in answers:
        k = getattr(a, "status", None) or str(a)
        out[k] = out.get(k, 0) + 1
    return out


# --------------------------------------------------------------------------- cancelled orders


def escrow_flows(h, order_id):
    """{(txn kind, account kind): sum of the entries} on the order's escrow accounts."""
    rows = h.psql_rows(
        "SELECT t.kind, a.kind, sum(e.amount) FROM ledger_entries e"
        " JOIN ledger_txns t ON t.id = e.txn_id JOIN ledger_accounts a ON a.id = e.account_id"
        f" WHERE a.order_id = '{order_id}'::uuid GROUP BY t.kind, a.kind")
    return {(t, a): int(s) for t, a, s in rows}


def claims_of(h, order_ids):
    """{item id: claims} of every record of the orders."""
    return {i: int(c) for i, c in h.psql_rows(
        f"SELECT id, claims FROM order_items WHERE order_id IN {sql_ids(order_ids)}")}


def cancel_problems(h, order_id):
    """What is wrong with the money of one cancelled order (an empty list when nothing):
    charged + unlocked = locked, per asset; what was charged is exactly the completed records'
    amounts; the quota given back is exactly the tokens of the records never charged; no charge
    was written after the cancel; nothing is left running."""
    problems = []
    flows = escrow_flows(h, order_id)
    for account in ("escrow", "quota_escrow"):
        locked = sum(v for (t, a), v in flows.items() if a == account and t in ("order_lock", "item_lock"))
        charged = -flows.get(("chunk_charge", account), 0)
        unlocked = -sum(v for (t, a), v in flows.items() if a == account and t in ("order_release", "item_refund"))
        other = {k: v for k, v in flows.items()
                 if k[1] == account and k[0] not in ("order_lock", "item_lock", "chunk_charge", "order_release",
                                                     "item_refund")}
        if charged + unlocked != locked or other:
            problems.append(f"{account}: locked {locked}, charged {charged}, unlocked {unlocked}, other {other}")
    row = h.psql_rows(
        "SELECT coalesce(sum(i.payg_minor + i.surcharge_minor) FILTER (WHERE c.id IS NOT NULL), 0),"
        " coalesce(sum(i.quota_tokens + i.surcharge_quota_tokens) FILTER (WHERE c.id IS NOT NULL), 0),"
        " coalesce(sum(i.quota_tokens) FILTER (WHERE c.id IS NULL AND i.item_type IN ('chunk', 'retry')), 0)"
        " FROM order_items i LEFT JOIN ledger_txns c ON c.kind = 'chunk_charge' AND c.reference = i.id::text"
        f" WHERE i.order_id = '{order_id}'::uuid")[0]
    money, tokens, uncharged_tokens = (int(x) for x in row)
    if -flows.get(("chunk_charge", "escrow"), 0) != money or -flows.get(("chunk_charge", "quota_escrow"), 0) != tokens:
        problems.append(f"charges {flows} differ from the completed records' {money} minor / {tokens} tokens")
    returned = -flows.get(("order_release", "quota_escrow"), 0)
    if returned != uncharged_tokens:
        problems.append(f"quota returned {returned}, tokens of the records never charged {uncharged_tokens}")
    late = h.psql_rows(
        "SELECT c.id FROM ledger_txns c JOIN ledger_txns r ON r.kind = 'order_release' AND r.reference = c.order_id::text"
        f" WHERE c.kind = 'chunk_charge' AND c.order_id = '{order_id}'::uuid AND c.id > r.id")
    if late:
        problems.append(f"charges written after the cancel: {late}")
    releases = h.psql_value(f"SELECT count(*) FROM ledger_txns WHERE kind = 'order_release'"
                            f" AND order_id = '{order_id}'::uuid")
    if releases != "1":
        problems.append(f"{releases} releases")
    running = h.psql_value(f"SELECT count(*) FROM order_items WHERE order_id = '{order_id}'::uuid"
                           " AND status IN ('pending', 'processing')")
    if running != "0":
        problems.append(f"{running} records still pending or processing")
    return problems


def assert_cancel_refusal(case, answer):
    """400 with only a message, no reason (spec 7.1: an order cancel in an invalid status)."""
    case.assertEqual(answer.status, 400, answer)
    case.assertIsInstance(answer.body, dict, answer)
    case.assertEqual(set(answer.body), {"success", "message"}, answer)
    case.assertIs(answer.body["success"], False, answer)
    case.assertTrue(answer.body["message"], answer)
