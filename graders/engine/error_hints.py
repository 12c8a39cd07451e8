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
     "Update parameters inside `with torch.no_grad():` (e.g. w -= lr * w.grad there), so that autograd does not "
     "record the update."),
    (re.compile(r"Can't call numpy\(\) on Tensor that requires grad"),
     "Call .detach() first: t.detach().numpy(), so that NumPy gets plain numbers out of the graph."),
    (re.compile(r"(size of tensor a \(\d+\) must match|shapes cannot be multiplied|mat1 and mat2 shapes)"),
     "Two tensors' shapes do not fit this operation: print their .shape on the line shown and compare them "
     "with the shapes the docstring promises."),
    (re.compile(r"(expected (scalar type|.*dtype) \w+ but found|found dtype \w+ but expected)"),
     "Two tensors of different dtypes meet here: make them the same, e.g. with .float() or dtype=... when "
     "you create one."),
)

GENERIC = ("{where} raised {error} when the check called {call}. Look at what that line does with the values "
           "it gets there: call your function yourself with the same inputs to see them.")


def hint_for(error: StudentError, call: str, file: str) -> str:
    """The hint for `error`, raised by the call shown as `call`, whose lines sit in `file` (as messages name it)."""
    for pattern, hint in KNOWN:
        if pattern.search(error.message):
            return hint
    name = f"{error.type}: {error.message}".strip().rstrip(":")
    if error.frames:
        _, line, function, source = error.frames[-1]
        where = f"Line {line} of {file}, in {function} (`{source}`),"
    else:
        where = f"Code outside {file} (torch's, or Python's) run by your function"
    return GENERIC.format(where=where, error=name.splitlines()[0][:200], call=call)
