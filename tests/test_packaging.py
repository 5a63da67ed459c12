"""What `pip install .` (not editable) ships: every package folder of the library and the app is listed in
pyproject.toml's [tool.setuptools] packages. A folder left out installs without its modules: the editable
install used while developing still finds them, the user's install does not (a moved module broke CI so)."""
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _listed() -> tuple[set[str], dict[str, str]]:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    return set(conf["packages"]), conf.get("package-dir", {})


def test_every_package_folder_is_installed():
    packages, dirs = _listed()
    by_dir = {folder: name for name, folder in dirs.items()}
    found = set()
    for top, name in (("gouji_dsl", "gouji_dsl"), ("editor", "gouji_app")):
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT).as_posix()
            if "__pycache__" in rel:
                continue
            dotted = by_dir.get(rel) or (name + rel[len(top):]).replace("/", ".")
            found.add(dotted)
    assert found - packages == set(), "add to [tool.setuptools] packages in pyproject.toml"
    # and every listed package is a folder that exists (a package renamed away leaves no stale name)
    data = {"gouji_dsl.rules", "gouji_dsl.grammar", "gouji_dsl.schema"}
    assert packages - found - data == set()
