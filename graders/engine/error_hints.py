"""What to try for an error the student's code raised that no catalogued mistake names.

First torch's own errors that lesson 1's topics run into, each with the one thing that fixes it; then, for
any other error, a hint that says what was called, what it raised and on which line of the student's file,
rather than "read the error", which the student has done already.
"""

from __future__ import annotations

import re

from graders.sandbox import StudentError

KNOWN = (
    (re.compile(r"does not require grad and does not have a grad_fn"),
     "backward() found nothing to differentiate: the tensors it starts from must come from leaves created with "
     "requires_grad=True, and be computed outside torch.no_grad() and without .detach() or .item()."),
    (re.compile(r"backward through the graph a second time"),
     "A graph is freed by its first backward(): compute the output again before each backward(), or pass "
     "retain_graph=True to the first one if you really need two."),
    (re.compile(r"leaf Variable that requires grad is being used in an in-place operation"),
     "Autograd refuses to change in place a tensor that requires grad, as the line shown does. An update of "
     "parameters goes inside `with torch.no_grad():` (w -= lr * w.grad there); any other value is changed on a copy "
     "of your own (x.detach().clone()) or built as a new tensor, leaving the one you were given alone."),
    (re.compile(r"Can't call numpy\(\) on Tensor that requires grad"),
     "Call .detach() first: t.detach().numpy(), so that NumPy gets plain numbers out of the graph."),
    (re.compile(r"(size of tensor a \(\d+\) must match|shapes cannot be multiplied|mat1 and mat2 shapes)"),
     "Two tensors' shapes do not fit this operation: print their .shape on the line shown and compare them "
     "with the shapes the docstring promises."),
    (re.compile(r"(expected (scalar type|.*dtype) \w+ but found|found dtype \w+ but expected)"),
     "Two tensors of different dtypes meet here: make them the same, e.g. with .float() or dtype=... when "
     "you create one."),
)

# One rule on every path (docs/students.md, "Your own modules"): the .py files directly beside the exercise files are graded
# with them; a notebook's answer cell has no files beside it.
OWN_MODULE_HINT = ("If `{name}` is a module of your own, put {name}.py directly beside {file}: the .py files there "
                   "are graded with it, by your run and the instructor's alike (a subfolder or a file elsewhere is "
                   "not). If it is a package, the grading environment does not have it: remove the import.")
ANSWER_CELL_MODULE_HINT = ("An answer cell is graded alone: it may import installed packages, never a module of your "
                           "own. If `{name}` is yours, put its code in the answer cell; if it is a package, the "
                           "grading environment does not have it: remove the import.")
IMPORT_HINT = "Install or remove the missing import."
_NO_MODULE = re.compile(r"No module named '(?P<name>[^'.]+)")

GENERIC = ("{where} raised {error} when the check called {call}. Look at what that line does with the values "
           "it gets there: call your function yourself with the same inputs to see them.")


def missing_module_hint(error: StudentError, file: str) -> str:
    """The hint for an import that failed, the module's file named `file` ("answer cell" in a notebook)."""
    missing = _NO_MODULE.search(error.message) if error.type == "ModuleNotFoundError" else None
    if missing is None:
        return IMPORT_HINT
    template = ANSWER_CELL_MODULE_HINT if file == "answer cell" else OWN_MODULE_HINT
    return template.format(name=missing["name"], file=file)


def hint_for(error: StudentError, call: str, file: str) -> str:
    """The hint for `error`, raised by the call shown as `call`, whose lines sit in `file` (as messages name it)."""
    if error.type == "ModuleNotFoundError":
        return missing_module_hint(error, file)
    for pattern, hint in KNOWN:
        if pattern.search(error.message):
            return hint
    name = f"{error.type}: {error.message}".strip().rstrip(":")
    if error.frames:
        frame_file, line, function, source = error.frames[-1]
        own_module = file != "answer cell" and frame_file != file  # one of the student's own modules
        where = f"Line {line} of {frame_file if own_module else file}, in {function} (`{source}`),"
    else:
        where = f"Code outside {file} (torch's, or Python's) run by your function"
    return GENERIC.format(where=where, error=name.splitlines()[0][:200], call=call)
