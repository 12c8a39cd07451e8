"""The kernel autograde runs notebooks in (graders/frontends/nbgrader/kernel.py): a kernelspec jupyter finds under
JUPYTER_PATH, starting this Python isolated (-I: no user site, no current folder on the path) with no debugger."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from graders.frontends.nbgrader.kernel import DISPLAY_NAME, KERNEL_NAME, write_kernelspec


def test_the_kernelspec_starts_this_python_isolated_on_this_module(tmp_path: Path) -> None:
    folder = write_kernelspec(tmp_path / "jupyter")
    assert folder == tmp_path / "jupyter" / "kernels" / KERNEL_NAME
    spec = json.loads((folder / "kernel.json").read_text())
    assert spec["argv"] == [sys.executable, "-I", "-m", "graders.frontends.nbgrader.kernel", "-f",
                            "{connection_file}"]
    assert (spec["display_name"], spec["language"], spec["metadata"]) == (DISPLAY_NAME, "python", {"debugger": False})
    write_kernelspec(tmp_path / "jupyter")  # a second build rewrites it in place
    assert [p.name for p in folder.iterdir()] == ["kernel.json"]
