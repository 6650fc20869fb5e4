"""A wheel installs everything it imports: every third-party module the package imports (at
the top of a module or inside a function) comes from a distribution that ``pyproject.toml``
declares, as a dependency or, for an import inside a function, in the optional extra that
guards it; and the data files (the checker's weights, the web page) are package data. The CI
step ``.ci/wheel-check`` proves the same on a real install in a fresh virtual environment."""

from __future__ import annotations

import ast
import fnmatch
import functools
import importlib.metadata
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "citation_verifier"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# Extras a user installs to run a feature; test and train are for developers, never guards.
RUNTIME_EXTRAS = ("browser", "local-llm", "ray", "postgres")
# A plug-in module imports its framework at its top, from the extra named after it (the module
# is imported only by those who installed it: docs/INTEGRATIONS.md).
PLUGIN_EXTRAS = {
    "ragas": "ragas",
    "deepeval": "deepeval",
    "inspect_ai": "inspect",
    "langsmith": "langsmith",
}
# Modules our dependencies import without declaring them in every version: a fresh install
# fails without them (justext imports lxml.html.clean; lxml 6.2 dropped its html_clean extra).
UNDECLARED_BY_DEPENDENCIES = {"lxml_html_clean": "lxml-html-clean"}


def _names(requirements: list[str]) -> set[str]:
    return {canonicalize_name(Requirement(r).name) for r in requirements}


def _imports(path: Path) -> list[tuple[str, bool]]:
    """Top-level names ``path`` imports (absolute imports, and importlib.import_module /
    find_spec of a string literal), each with whether it happens at module level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = top and not isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            if isinstance(child, ast.Import):
                found.extend((alias.name.split(".")[0], inner) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                found.append((child.module.split(".")[0], inner))
            elif (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr in ("import_module", "find_spec")
                and child.args
                and isinstance(child.args[0], ast.Constant)
                and isinstance(child.args[0].value, str)
            ):
                found.append((child.args[0].value.split(".")[0], inner))
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                continue  # imports for the type checker only
            visit(child, inner)

    visit(tree, True)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"


@functools.cache
def _installed() -> Mapping[str, list[str]]:
    return importlib.metadata.packages_distributions()


def _distributions(module: str) -> set[str]:
    return {canonicalize_name(d) for d in _installed().get(module, [])}


def test_every_third_party_import_is_declared() -> None:
    base = _names(PYPROJECT["project"]["dependencies"])
    extras = PYPROJECT["project"]["optional-dependencies"]
    guarded = set().union(*(_names(extras[name]) for name in RUNTIME_EXTRAS))
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for module, top in _imports(path):
            if module in sys.stdlib_module_names or module in ("citation_verifier", "__future__"):
                continue
            where = path.relative_to(ROOT)
            plugin = PLUGIN_EXTRAS.get(path.stem) if path.parent.name == "integrations" else None
            if plugin is not None and canonicalize_name(module) in _names(extras[plugin]):
                continue
            dists = _distributions(module)
            if not dists:
                problems.append(f"{where}: {module} is not installed from any distribution")
            elif not dists & (base if top else base | guarded):
                why = "a module-level import of an extra's package" if dists & guarded else ""
                problems.append(f"{where}: {module} ({', '.join(sorted(dists))}) {why}".strip())
    assert problems == [], "undeclared imports:\n" + "\n".join(problems)


def test_modules_our_dependencies_need_but_do_not_declare_are_declared() -> None:
    base = _names(PYPROJECT["project"]["dependencies"])
    assert {dist for dist in UNDECLARED_BY_DEPENDENCIES.values() if dist not in base} == set()


def test_the_wheel_carries_the_checker_and_every_data_file() -> None:
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert setuptools["packages"]["find"]["where"] == ["src"]
    patterns = setuptools["package-data"]["citation_verifier"]
    data = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    ]
    assert "data/checker/checker.onnx" in data and "data/checker/checker.json" in data
    missing = [name for name in data if not any(fnmatch.fnmatch(name, p) for p in patterns)]
    assert missing == [], f"not package data, so not in the wheel: {missing}"
    # Every folder with modules is a package (find_packages skips one without __init__.py).
    for path in PACKAGE.rglob("*.py"):
        assert (path.parent / "__init__.py").exists(), f"{path.parent} has no __init__.py"
