"""Every program the tests run is installed by scripts/lib/install.sh.

A fresh machine has nothing installed by hand, so a test that runs a program the install list
does not name passes on its author's machine and fails on everyone else's. This reads the list
from the install script itself and scans the test sources:
  - Python runs programs only through `program("name")` (tests/e2e/programs.py): a literal
    program name handed to subprocess or shutil.which directly is refused;
  - every `program("name")`, every name in programs.PROGRAMS and every name on a
    `require_programs` line of a test or project script must be on the install list.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import programs  # noqa: E402

PROGRAM_CALL = re.compile(r"""\bprogram\(\s*["']([^"']+)["']""")
RAW_CALL = re.compile(
    r"""\b(?:subprocess\.(?:run|Popen|call|check_call|check_output)|os\.exec\w+|shutil\.which)\(\s*\[?\s*["']([^"']+)["']""")
REQUIRE_LINE = re.compile(r"^\s*require_programs\s+(.+)$", re.M)
SKIP_DIRS = {"node_modules", ".git", "__pycache__"}


def install_list(use: str) -> set[str]:
    out = subprocess.run(["bash", "-c", f'source "{ROOT}/scripts/lib/install.sh" && install_programs {use}'],
                         capture_output=True, text=True, check=True, timeout=30).stdout
    return {line.split(":", 1)[0] for line in out.split() if line}


def source_files(top: str, suffixes: tuple[str, ...]):
    for base, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for f in files:
            if f.endswith(suffixes) or (suffixes == (".sh",) and "." not in f):
                yield os.path.join(base, f)


def problems_in_python(path: str, text: str, installed: set[str]) -> list[str]:
    found = []
    for m in RAW_CALL.finditer(text):
        found.append(f"{path}: runs '{m.group(1)}' directly; call it through program(\"{m.group(1)}\") "
                     "from tests/e2e/programs.py")
    for m in PROGRAM_CALL.finditer(text):
        name = m.group(1)
        if name not in programs.PROGRAMS:
            found.append(f"{path}: program(\"{name}\") is not declared in tests/e2e/programs.py")
        if name not in installed:
            found.append(f"{path}: the tests run '{name}', which scripts/lib/install.sh never installs")
    return found


def problems_in_shell(path: str, text: str, installed: set[str]) -> list[str]:
    found = []
    for m in REQUIRE_LINE.finditer(text):
        for name in m.group(1).split():
            if name not in installed:
                found.append(f"{path}: requires '{name}', which scripts/lib/install.sh never installs")
    return found


def scan(installed: set[str]) -> list[str]:
    found = []
    for path in source_files(os.path.join(ROOT, "tests"), (".py",)):
        if os.path.abspath(path) == os.path.abspath(__file__):
            continue
        with open(path, encoding="utf-8") as f:
            found += problems_in_python(os.path.relpath(path, ROOT), f.read(), installed)
    for top in ("tests", "scripts"):
        for path in source_files(os.path.join(ROOT, top), (".sh",)):
            with open(path, encoding="utf-8", errors="replace") as f:
                found += problems_in_shell(os.path.relpath(path, ROOT), f.read(), installed)
    return found


class InstallListTest(unittest.TestCase):
    def setUp(self):
        self.installed = install_list("test")

    def test_every_declared_program_is_installed(self):
        missing = sorted(set(programs.PROGRAMS) - self.installed)
        self.assertEqual(missing, [], "declared in tests/e2e/programs.py but not in scripts/lib/install.sh")

    def test_every_program_the_tests_run_is_installed(self):
        self.assertEqual(scan(self.installed), [])

    def test_the_scan_sees_a_program_missing_from_the_list(self):
        # The checker itself, against a list that lacks real programs (so no test names a program
        # that does not exist): a name the list lacks is reported wherever a test may name it.
        lacking = self.installed - {"mpg123", "cmake"}
        text = 'subprocess.run([program("mpg123"), "-q"])\nsubprocess.run([program("cmake")])\n'
        self.assertEqual(len(problems_in_python("t.py", text, self.installed)), 1)  # cmake is not declared
        self.assertEqual(len(problems_in_python("t.py", text, lacking)), 3)
        self.assertEqual(len(problems_in_python("t.py", 'subprocess.run(["mpg123", "x"])', self.installed)), 1)
        self.assertEqual(len(problems_in_python("t.py", 'shutil.which("node")', self.installed)), 1)
        self.assertEqual(problems_in_shell("t.sh", "require_programs node mpg123\n", lacking),
                         ["t.sh: requires 'mpg123', which scripts/lib/install.sh never installs"])
        self.assertEqual(problems_in_shell("t.sh", "require_programs node mpg123\n", self.installed), [])
        self.assertIn("mpg123", self.installed)


if __name__ == "__main__":
    unittest.main()
