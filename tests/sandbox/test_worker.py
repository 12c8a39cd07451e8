"""What a worker does with a request (graders/sandbox/worker.py), in a process of its own as a worker is: it imports
the student's file and the modules beside it (never a subfolder's package), answers a call with its value, its
argument when asked, its trace and what it printed (cut at the limit, the rest counted), and an error with the
frames of the student's own file."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

SUBMISSION = {
    "answer.py": "from helper import scale\nimport torch\n\ndef f(x):\n    print('p' * 50)\n    x.append(1)\n"
                 "    return scale(torch.tensor(x))\n\ndef broken(x):\n    return helper_missing(x)\n",
    "helper.py": "def scale(t):\n    return t * 3\n",
    "package/__init__.py": "",
    "package/inner.py": "VALUE = 1\n",
    "reaches.py": "import package.inner\n",
}

# The worker's own functions, in a fresh interpreter: what it changes (sys.meta_path, sys.modules) is its own.
DRIVER = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from graders.sandbox import worker
    folder = Path(sys.argv[1])
    output = worker._CappedOutput(20)
    module, ready = worker.import_student(folder / "answer.py", "student_answer", output)
    sys.stdout = output  # as the worker's streams are
    call = worker.answer({"op": "call", "function": "f", "args": [[2]], "return_args": True, "trace": True},
                         module, str(folder / "answer.py"), output)
    missing = worker.answer({"op": "call", "function": "g", "args": []}, module, str(folder / "answer.py"), output)
    raised = worker.answer({"op": "call", "function": "broken", "args": [1]}, module, str(folder / "answer.py"),
                           output)
    _, reaching = worker.import_student(folder / "reaches.py", "student_reaches", output)
    sys.stdout = sys.__stdout__
    print(json.dumps({"ready": ready, "value": call["value"].tolist(), "args": call["args"],
                      "traced": len(call["trace"]),
                      "output": call["output"], "dropped": call["output_dropped"], "missing": missing,
                      "raised": raised["error"], "reaching": reaching["error"]}, default=str))
""")


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """What the worker's functions gave, in one process for every test here (torch loads once)."""
    tmp_path = tmp_path_factory.mktemp("submission")
    for name, text in SUBMISSION.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    run = subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


def test_a_worker_imports_the_file_and_its_own_modules_and_answers_a_call(seen: dict) -> None:
    assert seen["ready"]["ready"] is True and {"f", "broken", "scale"} <= set(seen["ready"]["public"])
    assert seen["value"] == [6, 3]
    assert seen["args"] == [[2, 1]]  # the argument as the call left it, asked for with return_args
    assert seen["traced"] > 0  # torch's calls, recorded when the request asks for its trace
    assert seen["output"] == "p" * 20 and seen["dropped"] == 31  # 50 p's and a newline, the first 20 kept


def test_a_missing_function_names_what_the_module_has(seen: dict) -> None:
    missing = seen["missing"]
    assert missing["status"] == "missing" and missing["function"] == "g" and "f" in missing["public"]


def test_an_error_is_described_with_the_students_own_frames(seen: dict) -> None:
    raised = seen["raised"]
    assert raised["type"] == "NameError" and "helper_missing" in raised["message"]
    assert [frame[2] for frame in raised["frames"]] == ["broken"]
    assert raised["frames"][0][0].endswith("answer.py") and raised["frames"][0][1] == 10


def test_a_package_in_a_subfolder_is_not_the_students_to_import(seen: dict) -> None:
    reaching = seen["reaching"]
    assert reaching["type"] == "ModuleNotFoundError" and "package" in reaching["message"]
