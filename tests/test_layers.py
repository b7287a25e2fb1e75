"""The package's shape, read with `ast` (nothing is imported): imports only go down the layers, no
import cycles between packages or modules. (Size is not a rule: modules are split by idea, and
ruff's complexity rules, set in pyproject.toml, watch branches, returns, statements and arguments.)

Every import counts: at module level, inside functions, under `if TYPE_CHECKING:`, relative ones
and `importlib.import_module("casetrack...")` with a literal name.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import REPO

# Top to bottom. A module may import its own layer or a lower one; a package not listed fails.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "entry",
        ("casetrack.cli", "casetrack.__main__", "casetrack.daemon", "casetrack.mcp", "casetrack.setup"),
    ),
    ("application", ("casetrack.app",)),
    ("services", ("casetrack.ingest", "casetrack.search", "casetrack.view")),
    (
        "components",
        (
            "casetrack.store",
            "casetrack.embed",
            "casetrack.parse",
            "casetrack.ocr",
            "casetrack.chunk",
            "casetrack.quote",
            "casetrack.legal",
        ),
    ),
    (
        "domain",
        (
            "casetrack.domain",
            "casetrack.errors",
            "casetrack.config",
            "casetrack.privacy",
            "casetrack.privacy_fs",
            "casetrack.atomic_files",
            "casetrack.logsafe",
            "casetrack.private_temp",
            "casetrack",
        ),
    ),
)
# Inside the entry layer: which other entry packages each one may import.
ENTRY_IMPORTS: Mapping[str, frozenset[str]] = {
    "casetrack.__main__": frozenset({"casetrack.cli"}),
    "casetrack.cli": frozenset({"casetrack.daemon", "casetrack.mcp", "casetrack.setup"}),
    "casetrack.daemon": frozenset({"casetrack.mcp"}),
    "casetrack.mcp": frozenset(),
    "casetrack.setup": frozenset(),
}

PACKAGE = REPO / "casetrack"


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (a package's __init__ is the package's name)
    path: Path
    line: int


@dataclass(frozen=True)
class Violation:
    rule: str
    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: [{self.rule}] {self.message}"


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    nodes: list[ast.AST]  # its statements at any depth (+ calls of import_module, if it has any)
    lines: int

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"


def _statements(nodes: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """Statements at any depth: imports and function definitions are statements (faster than ast.walk)."""
    for node in nodes:
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def read_modules(root: Path) -> dict[str, Module]:
    """Every module under `root` (a package folder), by dotted name."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)  # messages name "casetrack/store/x.py"
        parts = rel.with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(rel))
        nodes = list(_statements(tree.body))
        if "import_module" in text:
            nodes += [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
        modules[name] = Module(name, rel, nodes, len(text.splitlines()))
    return modules


def _imported_names(module: Module, node: ast.AST) -> Iterator[str]:
    """The dotted names one node imports (a `from` import yields package.name for each name)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = module.name.split(".")
            package = package if module.is_package else package[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        yield base
        yield from (f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute | ast.Name)
        and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "import_module"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        yield node.args[0].value


def imports_of(module: Module, known: Mapping[str, Module], root: str) -> list[Import]:
    """The package's own modules that `module` imports (`from pkg import mod` is pkg.mod if mod is a module)."""
    found: dict[tuple[str, int], Import] = {}
    for node in module.nodes:
        for name in _imported_names(module, node):
            if name.split(".")[0] != root:
                continue
            while name not in known and "." in name:  # an attribute: the module that defines it
                name = name.rsplit(".", 1)[0]
            if name in known:
                line = getattr(node, "lineno", 0)
                found.setdefault((name, line), Import(module.name, name, module.path, line))
    return sorted(found.values(), key=lambda i: (i.line, i.target))


def unit_of(name: str, layers: Sequence[tuple[str, tuple[str, ...]]] = LAYERS) -> tuple[int, str] | None:
    """(layer index, package) of a module: the longest listed package holding it."""
    best: tuple[int, str] | None = None
    for index, (_, packages) in enumerate(layers):
        for package in packages:
            holds = name == package or (name.startswith(package + ".") and package != "casetrack")
            if holds and (best is None or len(package) > len(best[1])):
                best = (index, package)
    return best


def layer_violations(modules: Mapping[str, Module], imports: Sequence[Import]) -> list[Violation]:
    out = []
    for name, module in modules.items():
        if unit_of(name) is None:
            out.append(Violation("layer table", module.path, 1, f"{name} is in no layer of LAYERS: add it"))
    for imp in imports:
        src, dst = unit_of(imp.source), unit_of(imp.target)
        if src is None or dst is None or src[1] == dst[1]:
            continue
        what = f"{imp.source} ({LAYERS[src[0]][0]}) imports {imp.target} ({LAYERS[dst[0]][0]})"
        if dst[0] < src[0]:
            out.append(Violation("upward import", imp.path, imp.line, what))
        elif dst[0] == src[0] == 0 and dst[1] not in ENTRY_IMPORTS.get(src[1], frozenset()):
            allowed = ", ".join(sorted(ENTRY_IMPORTS.get(src[1], ()))) or "no other entry package"
            out.append(Violation("entry order", imp.path, imp.line, f"{what}; {src[1]} may import {allowed}"))
    return out


class _Tarjan:
    """Tarjan's strongly connected components of a graph of imports."""

    def __init__(self, edges: Mapping[str, set[str]]) -> None:
        self.edges = edges
        self.index: dict[str, int] = {}
        self.low: dict[str, int] = {}
        self.stack: list[str] = []
        self.on_stack: set[str] = set()
        self.found: list[list[str]] = []

    def visit(self, node: str) -> None:
        self.index[node] = self.low[node] = len(self.index)
        self.stack.append(node)
        self.on_stack.add(node)
        for nxt in sorted(self.edges.get(node, ())):
            if nxt not in self.index:
                self.visit(nxt)
                self.low[node] = min(self.low[node], self.low[nxt])
            elif nxt in self.on_stack:
                self.low[node] = min(self.low[node], self.index[nxt])
        if self.low[node] == self.index[node]:
            self.pop_component(node)

    def pop_component(self, root: str) -> None:
        """The nodes on the stack down to `root` form a component; kept when it is a cycle."""
        component = []
        while True:
            top = self.stack.pop()
            self.on_stack.discard(top)
            component.append(top)
            if top == root:
                break
        if len(component) > 1:
            self.found.append(sorted(component))


def _cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan), each as a list of nodes."""
    tarjan = _Tarjan(edges)
    for node in sorted(edges):
        if node not in tarjan.index:
            tarjan.visit(node)
    return tarjan.found


def _package(name: str) -> str:
    unit = unit_of(name)
    return unit[1] if unit else name


def cycle_violations(imports: Sequence[Import]) -> list[Violation]:
    out = []
    keys: tuple[tuple[str, Callable[[str], str]], ...] = (("package cycle", _package), ("module cycle", str))
    for rule, key in keys:
        edges: dict[str, set[str]] = {}
        witness: dict[tuple[str, str], Import] = {}
        for imp in imports:
            a, b = key(imp.source), key(imp.target)
            if a != b:
                edges.setdefault(a, set()).add(b)
                witness.setdefault((a, b), imp)
        for component in _cycles(edges):
            inside = [witness[(a, b)] for a in component for b in sorted(edges.get(a, ())) if b in component]
            first = inside[0]
            links = "; ".join(f"{i.path}:{i.line} {i.source} -> {i.target}" for i in inside)
            out.append(Violation(rule, first.path, first.line, f"{' <-> '.join(component)}: {links}"))
    return out


def check(root: Path) -> dict[str, list[Violation]]:
    """All violations in the package at `root`, by test: layers, cycles."""
    modules = read_modules(root)
    imports = [imp for module in modules.values() for imp in imports_of(module, modules, root.name)]
    return {
        "layers": layer_violations(modules, imports),
        "cycles": cycle_violations(imports),
    }


@functools.cache
def _real() -> dict[str, list[Violation]]:
    return check(PACKAGE)


def _report(violations: list[Violation]) -> str:
    return f"{len(violations)} violation(s):\n" + "\n".join(str(v) for v in violations)


def test_imports_only_go_down_the_layers() -> None:
    assert not _real()["layers"], _report(_real()["layers"])


def test_no_import_cycles_between_packages_or_modules() -> None:
    assert not _real()["cycles"], _report(_real()["cycles"])


# -- the checker itself, on a tiny fake tree --------------------------------------------------------


def _write(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checker_reports_each_rule(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "casetrack/__init__.py": '__version__ = "0"\n',
            "casetrack/errors.py": "",
            "casetrack/search/__init__.py": "",
            "casetrack/search/ok.py": "from casetrack.errors import *\nfrom casetrack.store import fine\n",
            "casetrack/store/__init__.py": "",
            "casetrack/store/fine.py": "import casetrack.errors\n",
            "casetrack/store/view.py": "def f() -> None:\n    from casetrack.search.ok import X\n",  # upward
            "casetrack/store/a.py": "from casetrack.store import b\n",  # a <-> b
            "casetrack/store/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n",
            "casetrack/mcp/__init__.py": "",
            "casetrack/mcp/server.py": "import casetrack.cli.main\n",  # mcp may import no entry package
            "casetrack/cli/__init__.py": "",
            "casetrack/cli/main.py": "from casetrack.mcp import server\nfrom casetrack.store import fine\n",
            "casetrack/extra.py": "",
        },
    )
    found = check(tmp_path / "casetrack")
    text = {rule: _report(found[rule]) for rule in found}
    layers = {(v.rule, v.path.name, v.line) for v in found["layers"]}
    assert layers == {
        ("upward import", "view.py", 2),
        ("entry order", "server.py", 1),
        ("layer table", "extra.py", 1),
    }, text["layers"]
    assert "casetrack.store.view (components) imports casetrack.search.ok (services)" in text["layers"]
    cycles = {(v.rule, v.message.split(":")[0]) for v in found["cycles"]}
    assert cycles == {
        ("module cycle", "casetrack.store.a <-> casetrack.store.b"),
        ("package cycle", "casetrack.cli <-> casetrack.mcp"),
        ("package cycle", "casetrack.search <-> casetrack.store"),
        ("module cycle", "casetrack.cli.main <-> casetrack.mcp.server"),
    }, text["cycles"]
