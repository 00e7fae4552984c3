"""The library graph declared in src/CMakeLists.txt is the layering the code keeps.

A file may include another target's header only when its target reaches it: its PUBLIC and
PRIVATE links, then their PUBLIC links onward (as in CMake, a dependency's PRIVATE links give its
users nothing). The links have no cycle; the floors (core, db, cache, access, http, boost_impl) reach only
floors. The pipeline (the HTTP pipeline that knows auth) stands above the floors beside the
domains. libpqxx stays in db and *_store files, hiredis in cache. The build file reader knows
exactly the constructs of src/CMakeLists.txt and raises on any other rather than misread it.
"""

import glob
import os
import re
import tempfile
import unittest

ROOT = os.environ.get("MEDIAGEN_ROOT") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
FLOORS = {"mediagen_core", "mediagen_db", "mediagen_cache", "mediagen_access", "mediagen_http", "mediagen_boost_impl"}
IGNORED = {"include", "mediagen_embed_migrations", "mediagen_embed_docs", "target_compile_definitions",
           "mediagen_warnings", "add_dependencies", "target_include_directories", "set_target_properties"}
KNOWN = IGNORED | {"set", "list", "file", "add_library", "add_executable", "target_link_libraries",
                   "if", "endif", "foreach", "endforeach", "function", "endfunction"}
# The reading of mediagen_library calls below holds only for this body of the function.
LIBRARY_FUNCTION = """function(mediagen_library name)
  cmake_parse_arguments(L "" "" "DIRS;EXCLUDE;EXTRA;PUBLIC;PRIVATE" ${ARGN})
  set(sources ${L_EXTRA})
  foreach(dir IN LISTS L_DIRS)
    file(GLOB found CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*.cpp)
    list(APPEND sources ${found})
  endforeach()
  foreach(skip IN LISTS L_EXCLUDE)
    list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/${skip})
  endforeach()
  add_library(${name} STATIC ${sources})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${L_PUBLIC} PRIVATE ${L_PRIVATE})
  set_target_properties(${name} PROPERTIES UNITY_BUILD ${MEDIAGEN_UNITY} UNITY_BUILD_BATCH_SIZE 8)
  mediagen_warnings(${name})
endfunction()
"""
CMAKE_COMMAND = re.compile(r'(\w+)[ \t]*\(([^()]*)\)')
CXX_SKIP = re.compile(r'R"([^(\s]*)\(.*?\)\1"|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|//[^\n]*|/\*.*?\*/',
                      re.S)
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"]+)"|<(mediagen/[^>]+)>)', re.M)


class BuildFileError(Exception):
    """The build file has a shape this reader does not understand."""


def cmake_commands(text):
    """(name, raw args, line) per command; any other text (nested parentheses too) raises."""
    text = re.sub(r"#[^\n]*", "", text)  # no '#' stands inside a quoted argument of this file
    left = CMAKE_COMMAND.sub("", text).strip()
    if left:
        raise BuildFileError(f"not understood: {left[:60]!r}")
    return [(m[1].lower(), re.findall(r'"[^"]*"|[^\s"]+', m[2]), text.count("\n", 0, m.start()) + 1)
            for m in CMAKE_COMMAND.finditer(text)]


def block_tree(cmds, i=0, until=()):
    """Nests if/foreach/function bodies: nodes (name, args, line, body or None)."""
    nodes = []
    while i < len(cmds) and cmds[i][0] not in until:
        name, args, line = cmds[i]
        body = None
        if name in ("if", "foreach", "function"):
            body, i = block_tree(cmds, i + 1, ("end" + name,))
        nodes.append((name, args, line, body))
        i += 1
    if until and i >= len(cmds):
        raise BuildFileError(f"missing {until[-1]}")
    return nodes, i


class Build:
    """Runs the build file far enough to know each target's folders, sources and links."""

    def __init__(self, root, text):
        self.root, self.src = root, os.path.join(root, "src")
        self.vars = {"CMAKE_CURRENT_SOURCE_DIR": [self.src], "PROJECT_SOURCE_DIR": [root],
                     "CMAKE_CURRENT_BINARY_DIR": ["<binary-dir>"]}
        self.targets = {}
        cmds = cmake_commands(text)
        # Every command, also in a branch not taken, is one the reader knows, and the one
        # function is mediagen_library exactly as its calls are read below.
        canon = [c[:2] for c in cmake_commands(LIBRARY_FUNCTION)]
        known = KNOWN | {"mediagen_library"} | {c[0] for c in canon}
        for i, (name, _args, line) in enumerate(cmds):
            if name not in known or name == "function" and [c[:2] for c in cmds[i:i + len(canon)]] != canon:
                raise BuildFileError(f"src/CMakeLists.txt:{line}: {name} is not understood")
        self.run(block_tree(cmds)[0])

    def expand(self, args):
        """Arguments with ${var} replaced and split on ';' (a quoted one only the function has)."""
        if any(a.startswith('"') for a in args):
            raise BuildFileError(f"quoted argument in {args}")
        value = lambda m: ";".join(self.vars.get(m[1], []))  # as in CMake, an unset one is empty
        return [v for a in args for v in re.sub(r"\$\{(\w+)\}", value, a).split(";") if v]

    def run(self, nodes):
        for name, args, line, body in nodes:
            where = f"src/CMakeLists.txt:{line}: {name}"
            if name == "if":
                self.run(body if self.condition(args, where) else [])
            elif name == "foreach":
                if len(args) < 2 or args[1] in ("IN", "RANGE"):
                    raise BuildFileError(f"{where}: only foreach(var items...) is understood")
                for item in self.expand(args[1:]):
                    self.vars[args[0]] = [item]
                    self.run(body)
            elif name not in IGNORED and name != "function":
                self.command(name, self.expand(args), where)

    def condition(self, args, where):
        if len(args) == 2 and args[0] in ("EXISTS", "TARGET"):
            value = self.expand(args[1:])[0]
            return os.path.exists(value) if args[0] == "EXISTS" else value in self.targets
        if len(args) == 1 and re.fullmatch(r"\w+", args[0]):
            value = ";".join(self.vars.get(args[0], []))
            return value.upper() not in ("", "0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND")
        raise BuildFileError(f"{where}: condition {args} is not understood")

    def command(self, name, args, where):
        if name == "set" and args:
            if args[-1] != "PARENT_SCOPE":  # a parent-scope set leaves this scope unchanged
                self.vars[args[0]] = args[1:]
        elif name == "list" and args[:1] == ["APPEND"] and len(args) > 1:
            self.vars[args[1]] = self.vars.get(args[1], []) + args[2:]
        elif name == "file" and args[:1] == ["GLOB"] and len(args) > 2:
            pats = [p for p in args[2:] if p != "CONFIGURE_DEPENDS"]
            self.vars[args[1]] = sorted(f for p in pats for f in glob.glob(p))
        elif name == "add_library" and args[1:2] == ["STATIC"] or name == "add_executable" and args:
            self.add_target(args[0], [], args[1:] if name == "add_executable" else args[2:], [])
        elif name == "target_link_libraries":
            self.link(args, where)
        elif name == "mediagen_library" and args:
            self.library(args, where)
        else:
            raise BuildFileError(f"{where}{tuple(args)} is not understood")

    def add_target(self, name, dirs, sources, excluded):
        # Paths as the project names them; a file generated in the build tree is left out.
        rel = lambda p: None if p.startswith("<binary-dir>") else os.path.relpath(
            os.path.normpath(os.path.join(self.src, p)), self.root).replace(os.sep, "/")
        skip = set(map(rel, excluded))
        files = [f for f in map(rel, sources) if f and f not in skip]
        self.targets[name] = {"dirs": dirs, "sources": files, "PUBLIC": [], "PRIVATE": []}

    def link(self, args, where):
        if not args or args[0] not in self.targets:
            raise BuildFileError(f"{where}: links of a target not declared before")
        for scope, items in keyword_parts(args[1:], ("PUBLIC", "PRIVATE"), where).items():
            self.targets[args[0]][scope] += items

    def library(self, args, where):
        p = keyword_parts(args[1:], ("DIRS", "EXCLUDE", "EXTRA", "PUBLIC", "PRIVATE"), where)
        found = [f for d in p["DIRS"] for f in sorted(glob.glob(os.path.join(self.src, d, "*.cpp")))]
        self.add_target(args[0], p["DIRS"], p["EXTRA"] + found, p["EXCLUDE"])
        self.link([args[0], "PUBLIC", *p["PUBLIC"], "PRIVATE", *p["PRIVATE"]], where)


def keyword_parts(items, keys, where):
    """The split cmake_parse_arguments makes; an item before any keyword raises."""
    if items and items[0] not in keys:
        raise BuildFileError(f"{where}: {items[0]} before any keyword")
    parts, key = {k: [] for k in keys}, None
    for item in items:
        if item in parts:
            key = item
        else:
            parts[key].append(item)
    return parts


def read_build(root):
    with open(os.path.join(root, "src", "CMakeLists.txt"), encoding="utf-8") as fh:
        targets = Build(root, fh.read()).targets
    unknown = [f"{n} -> {d}" for n, t in targets.items() for d in t["PUBLIC"] + t["PRIVATE"]
               if "::" not in d and d not in targets]  # X::Y are imported libraries
    if unknown:
        raise BuildFileError(f"links to no target of the build: {unknown}")
    return targets


def links(targets, name, scopes=("PUBLIC", "PRIVATE")):
    """Direct links of a target to other targets (imported X::Y libraries left out)."""
    return [d for s in scopes for d in targets[name][s] if d in targets]


def usable(targets):
    """Per target, the targets whose headers it may include: its links, then PUBLIC links onward."""
    def public(name, seen):
        for d in links(targets, name, ("PUBLIC",)):
            if d not in seen:
                seen.add(d)
                public(d, seen)
        return seen
    return {n: set().union(*(public(d, {d}) for d in links(targets, n))) for n in targets}


def owners(targets):
    """Source file -> target, and DIRS folder -> target; a file or folder in two targets raises."""
    by_file, by_dir = {}, {}
    for name, t in targets.items():
        for item, table in [(f, by_file) for f in t["sources"]] + [(d, by_dir) for d in t["dirs"]]:
            if table.setdefault(item, name) != name:
                raise BuildFileError(f"{item} belongs to {table[item]} and {name}")
    return by_file, by_dir


def owner_of(rel, by_file, by_dir):
    """A source's target; a header goes with its same-named source (http/pipeline.hpp with the
    EXTRA http/pipeline.cpp), else with the target whose DIRS holds its folder."""
    if rel in by_file or rel.endswith(".cpp"):
        return by_file.get(rel)  # a source no target builds has no owner
    for top in ("src/", "include/mediagen/"):
        if rel.startswith(top):
            sub, base = os.path.split(rel[len(top):])
            stem = os.path.splitext(base)[0]
            # A room's one public header is named as its room: include/mediagen/orders/queue.hpp
            # belongs to the target of src/orders/queue/.
            room = by_dir.get(f"{sub}/{stem}") if top == "include/mediagen/" else None
            return room or by_file.get(f"src/{sub}/{stem}.cpp") or by_dir.get(sub)
    return None


def tree_files(root):
    pats = ("src/**/*.cpp", "src/**/*.hpp", "src/**/*.h", "include/mediagen/**/*.hpp")
    return sorted(os.path.relpath(f, root).replace(os.sep, "/")
                  for p in pats for f in glob.glob(os.path.join(root, p), recursive=True))


def code(root, rel):
    """The file with comments, raw strings and character literals blanked, lines kept."""
    with open(os.path.join(root, rel), encoding="utf-8") as fh:
        return CXX_SKIP.sub(lambda m: m[0] if m[0][0] == '"' else re.sub(r"[^\n]", " ", m[0]), fh.read())


def includes(root, rel):
    """(line, name, path, exists) per quoted include, searched as the compiler does: beside the
    file, then include/, then src/ (a local include that reaches into another src folder)."""
    bare, out = code(root, rel), []
    for m in INCLUDE.finditer(bare):
        name = m.group(1) or m.group(2)
        cands = [os.path.normpath(os.path.join(os.path.dirname(rel), name)).replace(os.sep, "/"),
                 "include/" + name, "src/" + name]
        found = next((c for c in cands if os.path.isfile(os.path.join(root, c))), None)
        path = found or ("include/" + name if name.startswith("mediagen/") else None)  # names its library
        out.append((bare.count("\n", 0, m.start()) + 1, name, path, found is not None))
    return out


def include_edges(root, targets):
    """Includes that cross targets as (file, line, name, from, to); the includes that find no
    file or no owner; the files no target owns."""
    by_file, by_dir = owners(targets)
    edges, missing, orphans = [], [], []
    for rel in tree_files(root):
        a = owner_of(rel, by_file, by_dir)
        if a is None:
            orphans.append(rel)
            continue
        for line, name, path, exists in includes(root, rel):
            b = owner_of(path, by_file, by_dir) if path else None
            if not exists or b is None:
                missing.append(f"{rel}:{line} includes {name} "
                               f"({'no target owns it' if exists else 'no such file'})")
            if b is not None and b != a:
                edges.append((rel, line, name, a, b))
    return edges, missing, orphans


def undeclared(edges, targets):
    reach = usable(targets)
    return [f"{f}:{l} includes {n} ({a} -> {b} not declared)" for f, l, n, a, b in edges
            if b not in reach[a]]


def private_reaches(edges):
    """A header under src/ is its target's own: another target reaches it only through the
    public headers under include/mediagen/ (the rooms of orders and engines above all)."""
    return [f"{f}:{l} includes {n} (a private header of {b}, from {a})" for f, l, n, a, b in edges
            if not n.startswith("mediagen/") and "/" in n]  # a bare name is a file beside it (main.cpp)


def floor_violations(edges, targets):
    out = [f"{n} links {d} (a floor may link only floors)" for n in sorted(targets)
           if n in FLOORS for d in links(targets, n) if d not in FLOORS]
    return out + [f"{f}:{l} includes {n} (floor {a} -> {b})" for f, l, n, a, b in edges
                  if a in FLOORS and b not in FLOORS]


def cycles(targets):
    """Each cycle of the declared links met in a depth-first walk, as 'a -> b -> a'."""
    found, done = [], set()
    def visit(path):
        for d in links(targets, path[-1]):
            if d in path:
                found.append(" -> ".join(path[path.index(d):] + [d]))
            elif d not in done:
                visit(path + [d])
        done.add(path[-1])
    for n in sorted(targets):
        if n not in done:
            visit([n])
    return found


def library_use(root):
    """pqxx outside db and *_store files; hiredis outside cache."""
    pq = re.compile(r"#\s*include\s*<pqxx/|\bpqxx::")
    redis = re.compile(r"#\s*include\s*<hiredis|\bredisContext\b|\bredisReply\b")
    out = []
    for rel in tree_files(root):
        store = os.path.splitext(os.path.basename(rel))[0].endswith("_store")
        rules = [(pq, "libpqxx", rel.startswith(("src/db/", "include/mediagen/db/")) or store),
                 (redis, "hiredis", rel.startswith(("src/cache/", "include/mediagen/cache/")))]
        bare = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', code(root, rel))  # words in strings are no use
        out += [f"{rel}:{bare.count(chr(10), 0, m.start()) + 1} uses {lib}"
                for pattern, lib, allowed in rules if not allowed for m in pattern.finditer(bare)]
    return out


class LayeringTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.targets = read_build(ROOT)
        cls.edges, cls.missing, cls.orphans = include_edges(ROOT, cls.targets)

    def report(self, found, why):
        self.assertEqual(found, [], why + ":\n  " + "\n  ".join(found))

    def test_every_file_and_include_has_an_owner(self):
        self.report(self.orphans + self.missing, "no target builds or owns these files")

    def test_includes_follow_declared_links(self):
        self.report(undeclared(self.edges, self.targets), "add the link or move the code")

    def test_private_headers_stay_in_their_target(self):
        self.report(private_reaches(self.edges), "include the room's public header instead")

    def test_declared_links_have_no_cycle(self):
        self.report(cycles(self.targets), "cycle in the declared links")

    def test_floors_reach_only_floors(self):
        unknown = [f"{n} is no target" for n in sorted(FLOORS - set(self.targets))]
        self.report(unknown + floor_violations(self.edges, self.targets), "a floor reaches above the floors")

    def test_pqxx_and_hiredis_stay_in_their_layer(self):
        self.report(library_use(ROOT), "libpqxx only in db and *_store files, hiredis only in cache")


SAMPLE = LIBRARY_FUNCTION + """
mediagen_library(mediagen_core DIRS core)
mediagen_library(mediagen_db DIRS db PUBLIC mediagen_core)
mediagen_library(mediagen_cache DIRS cache PUBLIC mediagen_core PRIVATE mediagen_db)
mediagen_library(mediagen_http DIRS http EXCLUDE http/boost_impl.cpp http/pipeline.cpp PUBLIC mediagen_core)
add_library(mediagen_boost_impl STATIC http/boost_impl.cpp)
foreach(domain orders)
  mediagen_library(mediagen_${domain} DIRS ${domain} PRIVATE mediagen_cache ${later})
  list(APPEND later mediagen_${domain})
endforeach()
mediagen_library(mediagen_pipeline DIRS http/stages EXTRA http/pipeline.cpp PUBLIC mediagen_http)
add_executable(mediagen app/main.cpp)
target_link_libraries(mediagen PRIVATE mediagen_pipeline mediagen_orders)
target_link_libraries(mediagen_db PRIVATE mediagen_orders)
"""
SAMPLE_FILES = {
    "src/core/a.cpp": '#include "mediagen/orders/o.hpp"\n',  # a floor reaching a domain
    "src/http/h.cpp": '#include "mediagen/http/pipeline.hpp"\n',  # http reaching the pipeline
    "src/orders/o.cpp": '#include "mediagen/db/d.hpp"\n#include <pqxx/pqxx>\n',
    "src/orders/x_store.cpp": "pqxx::work* w;\n", "src/cache/c.cpp": "redisReply* r;\n",
    "src/http/pipeline.cpp": '#include "stages/s.hpp"\n/* pqxx::work */\n', "src/http/stages/s.hpp": "",
    "src/db/d.cpp": "", "src/http/boost_impl.cpp": "", "src/app/main.cpp": "",
    "include/mediagen/orders/o.hpp": "", "include/mediagen/db/d.hpp": "",
    "include/mediagen/http/pipeline.hpp": "", "src/CMakeLists.txt": SAMPLE,
}


class ReaderSelfCheck(unittest.TestCase):
    def test_violations_in_a_sample_tree_are_seen(self):
        with tempfile.TemporaryDirectory() as root:
            for rel, text in SAMPLE_FILES.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w", encoding="utf-8") as fh:
                    fh.write(text)
            targets = read_build(root)
            edges, missing, orphans = include_edges(root, targets)
            found = (undeclared(edges, targets), floor_violations(edges, targets), library_use(root))
        self.assertEqual(targets["mediagen_pipeline"]["sources"], ["src/http/pipeline.cpp"])
        self.assertEqual((missing, orphans), ([], []))
        self.assertEqual(found[0], [
            "src/core/a.cpp:1 includes mediagen/orders/o.hpp (mediagen_core -> mediagen_orders not declared)",
            "src/http/h.cpp:1 includes mediagen/http/pipeline.hpp "
            "(mediagen_http -> mediagen_pipeline not declared)",
            # cache links db PRIVATE, so db is not usable by orders, which links cache
            "src/orders/o.cpp:1 includes mediagen/db/d.hpp (mediagen_orders -> mediagen_db not declared)"])
        self.assertEqual(cycles(targets),
                         ["mediagen_orders -> mediagen_cache -> mediagen_db -> mediagen_orders"])
        self.assertEqual(found[1][0], "mediagen_db links mediagen_orders (a floor may link only floors)")
        self.assertEqual(len(found[1]), 3)  # and the two floor files including above the floors
        self.assertEqual(found[2], ["src/orders/o.cpp:2 uses libpqxx"])

    def test_unknown_build_shapes_raise(self):
        for text in ("add_subdirectory(x)", "if(A AND B)\nendif()", "target_link_libraries(nope PRIVATE a)",
                     "function(other name)\nendfunction()", "set(x \"y\")", "if(OFF)\nfoo()\nendif()",
                     LIBRARY_FUNCTION.replace("PRIVATE ${L_PRIVATE}", "INTERFACE ${L_PRIVATE}")):
            with self.assertRaises(BuildFileError, msg=text):
                Build(tempfile.gettempdir(), text)


if __name__ == "__main__":
    unittest.main()
