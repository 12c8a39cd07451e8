"""The kernel that autograde runs a notebook in: `python -I -m graders.frontends.nbgrader.kernel -f FILE`.

nbgrader starts the kernel in the student's folder (`autograded/<student>/<assignment>/`).
An ordinary kernel would import whatever the student put there: an `ipykernel_launcher.py`
runs as the instructor before anything else, a `json.py` when the kernel first needs json.
This one starts in Python's isolated mode (no working folder or PYTHON* variables on the
path) and tells IPython not to add the working folder either, so nothing beside the
notebook is ever imported. The setup cell's `from nbchecks import runtime` gets the
installed runtime instead of the folder's copy. The build writes its kernelspec
(`write_kernelspec`), and nbgrader_config.py makes autograde use it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

KERNEL_NAME = "graders-autograde"
DISPLAY_NAME = "Python 3 (course autograder, isolated)"


def kernelspec() -> dict:
    return {"argv": [sys.executable, "-I", "-m", "graders.frontends.nbgrader.kernel", "-f", "{connection_file}"],
            "display_name": DISPLAY_NAME, "language": "python", "metadata": {"debugger": False}}


def write_kernelspec(jupyter_path: Path) -> Path:
    """Write `jupyter_path/kernels/<KERNEL_NAME>/kernel.json`; jupyter finds it through JUPYTER_PATH."""
    folder = jupyter_path / "kernels" / KERNEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(json.dumps(kernelspec(), indent=2) + "\n")
    return folder


def main(argv: list[str]) -> None:
    import graders.frontends.nbgrader
    from graders.frontends.nbgrader import runtime

    runtime.ISOLATED_KERNEL = True
    sys.modules["nbchecks"] = graders.frontends.nbgrader  # the setup cell imports nbchecks.runtime: give it this one
    sys.modules["nbchecks.runtime"] = runtime
    from ipykernel.kernelapp import IPKernelApp

    IPKernelApp.launch_instance(argv=[*argv, "--IPKernelApp.ignore_cwd=True"])


if __name__ == "__main__":
    main(sys.argv[1:])
