#!/usr/bin/env python3
"""Run the end-to-end modules, several at a time (each module has its own database and ports).

    python3 tests/e2e/run.py                 # every test_*.py, 4 in parallel
    python3 tests/e2e/run.py -j 1 test_auth  # selected modules, one at a time

Needs MEDIAGEN_BIN, MEDIAGEN_TEST_PG_ADMIN_URL and MEDIAGEN_TEST_REDIS_URL (see harness.py).
Exits non-zero when any module fails.
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_module(name: str):
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "unittest", "-v", name], cwd=HERE,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return name, p.returncode, p.stdout, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-j", "--jobs", type=int, default=4)
    ap.add_argument("modules", nargs="*")
    ns = ap.parse_args()
    modules = [m[:-3] if m.endswith(".py") else m for m in ns.modules] or sorted(
        f[:-3] for f in os.listdir(HERE) if f.startswith("test_") and f.endswith(".py"))
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max(1, ns.jobs)) as pool:
        for name, code, out, secs in pool.map(run_module, modules):
            status = "ok" if code == 0 else "FAILED"
            print(f"===== {name}: {status} ({secs:.1f}s)")
            if code != 0 or os.environ.get("MEDIAGEN_E2E_VERBOSE"):
                print(out)
            if code != 0:
                failed.append(name)
    print(f"{len(modules) - len(failed)}/{len(modules)} modules passed" + (f"; failed: {', '.join(failed)}"
                                                                           if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
