"""The similarity check over a class's answers (graders/frontends/grade/outputs/similarity.py), on real answers.

The class: five students who each wrote their own correct answers to four exercises (different names,
structure and APIs, and, as in a real class, the same one-liners where the docstring all but dictates
them), two students who copied one answer each from a classmate (renamed variables, new comments,
independent lines reordered), two who handed the stubs back untouched, and one who copied an answer
of an earlier term. The stubs are the real ones of exercises/lesson01/.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

import course_config
from conftest import STUBS
from graders.frontends.grade.outputs.similarity import THRESHOLD, Pair, similar_pairs, similarity_csv
from graders.frontends.grade.outputs.similarity_page import similarity_html

EXERCISES = ("sin_exp_derivative", "finite_differences", "quadratic_fit", "grad_accumulation")
STUB_TEXTS = {slug: (STUBS / "lesson01" / f"{slug}.py").read_text() for slug in EXERCISES}
TODO = "    # TODO: write this function.\n    raise NotImplementedError\n"
HOSTILE = "<img src=x onerror=alert(1)>"


def _answer(slug: str, *bodies: str) -> str:
    """The stub of `slug` with its functions' TODO bodies replaced, in order, by `bodies`."""
    parts = STUB_TEXTS[slug].split(TODO)
    assert len(parts) == len(bodies) + 1, f"{slug} has {len(parts) - 1} functions to write, got {len(bodies)} bodies"
    written = [textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n" for body in bodies]
    return parts[0] + "".join(body + part for body, part in zip(written, parts[1:]))


# Honest answers: each student wrote their own. ---------------------------------------------------------------

SIN_EXP = {
    "ana": _answer(
        "sin_exp_derivative",
        "return torch.sin(x) * torch.exp(-x)",
        """
        leaf = x.detach().clone().requires_grad_(True)
        f(leaf).sum().backward()
        return leaf.grad.detach()
        """,
        "return torch.exp(-x) * (torch.cos(x) - torch.sin(x))",
        """
        x = torch.linspace(start, end, n)
        return (autograd_derivative(x) - analytic_derivative(x)).abs().max().item()
        """),
    "ben": _answer(
        "sin_exp_derivative",
        "return x.sin() * (-x).exp()",
        """
        t = x.detach().clone()
        t.requires_grad = True
        out = f(t)
        total = out.sum()
        total.backward()
        return t.grad
        """,
        """
        e = torch.exp(-x)
        return torch.cos(x) * e - torch.sin(x) * e
        """,
        """
        points = torch.linspace(start, end, n)
        gap = autograd_derivative(points) - analytic_derivative(points)
        return float(gap.abs().max())
        """),
    "chloe": _answer(
        "sin_exp_derivative",
        "return torch.exp(-x) * torch.sin(x)",
        """
        with torch.enable_grad():
            leaf = x.detach().requires_grad_()
            values = f(leaf)
            values.backward(torch.ones_like(values))
        return leaf.grad
        """,
        """
        # product rule: (u v)' = u' v + u v'
        u, du = torch.sin(x), torch.cos(x)
        v = torch.exp(-x)
        dv = -v
        return du * v + u * dv
        """,
        """
        grid = torch.linspace(start, end, steps=n)
        diffs = torch.abs(autograd_derivative(grid) - analytic_derivative(grid))
        return torch.max(diffs).item()
        """),
    "dev": _answer(
        "sin_exp_derivative",
        "return torch.mul(torch.sin(x), torch.exp(torch.neg(x)))",
        """
        inp = x.clone().detach()
        inp.requires_grad_()
        s = f(inp).sum()
        s.backward()
        result = inp.grad
        return result.detach()
        """,
        "return (torch.cos(x) - torch.sin(x)) / torch.exp(x)",
        """
        xs = torch.linspace(start, end, n)
        a, b = autograd_derivative(xs), analytic_derivative(xs)
        return max(abs(p - q) for p, q in zip(a.tolist(), b.tolist()))
        """),
    "emma": _answer(
        "sin_exp_derivative",
        "return torch.sin(x) * torch.exp(-x)",
        """
        copy = x.detach().clone()
        copy.requires_grad_(True)
        torch.autograd.backward(f(copy).sum())
        return copy.grad.clone()
        """,
        """
        ex = torch.exp(-x)
        return ex * torch.cos(x) - ex * torch.sin(x)
        """,
        """
        x = torch.linspace(start, end, n)
        return torch.max(torch.abs(autograd_derivative(x) - analytic_derivative(x))).item()
        """),
}

FINITE = {
    "ana": _answer(
        "finite_differences",
        """
        x = x.detach()
        gradient = torch.empty_like(x)
        for i in range(x.numel()):
            step = torch.zeros_like(x)
            step[i] = h
            gradient[i] = (f(x + step) - f(x - step)) / (2 * h)
        return gradient
        """,
        """
        gap = (a - b).abs()
        scale = (a.abs() + b.abs()).clamp(min=1e-8)
        return (gap / scale).max().item()
        """,
        """
        x64 = x.detach().to(torch.float64)
        leaf = x64.clone().requires_grad_(True)
        f(leaf).backward()
        return relative_error(leaf.grad, numerical_gradient(f, x64))
        """),
    "ben": _answer(
        "finite_differences",
        """
        grads = []
        base = x.detach().clone()
        for i in range(len(base)):
            up = base.clone()
            up[i] += h
            down = base.clone()
            down[i] -= h
            grads.append((f(up) - f(down)).item() / (2 * h))
        return torch.tensor(grads, dtype=x.dtype)
        """,
        """
        denom = torch.clamp(torch.abs(a) + torch.abs(b), min=1e-8)
        return float(torch.max(torch.abs(a - b) / denom))
        """,
        """
        x64 = x.detach().double().requires_grad_()
        out = f(x64)
        out.backward()
        auto = x64.grad.clone()
        estimate = numerical_gradient(f, x64.detach())
        return relative_error(auto, estimate)
        """),
    "chloe": _answer(
        "finite_differences",
        """
        # one row of the identity per coordinate, scaled to the step
        nudges = torch.eye(x.shape[0], dtype=x.dtype) * h
        base = x.detach()
        slopes = [(f(base + e) - f(base - e)) / (2 * h) for e in nudges]
        return torch.stack(slopes)
        """,
        """
        num = (a - b).abs()
        den = torch.maximum(a.abs() + b.abs(), torch.full_like(a, 1e-8))
        ratio = num / den
        return ratio.max().item() if ratio.numel() else 0.0
        """,
        """
        data = x.detach().to(dtype=torch.float64)
        w = data.clone()
        w.requires_grad = True
        loss = f(w)
        loss.backward()
        return relative_error(w.grad, numerical_gradient(f, data))
        """),
    "dev": _answer(
        "finite_differences",
        """
        n = x.numel()
        result = x.new_zeros(n)
        with torch.no_grad():
            for j in range(n):
                plus = x.clone()
                plus[j] = plus[j] + h
                minus = x.clone()
                minus[j] = minus[j] - h
                result[j] = (f(plus) - f(minus)) / (h + h)
        return result
        """,
        """
        worst = 0.0
        for p, q in zip(a.flatten().tolist(), b.flatten().tolist()):
            worst = max(worst, abs(p - q) / max(1e-8, abs(p) + abs(q)))
        return worst
        """,
        """
        point = torch.tensor(x.tolist(), dtype=torch.float64, requires_grad=True)
        f(point).backward()
        analytic = point.grad
        numeric = numerical_gradient(f, point.detach())
        return relative_error(analytic, numeric)
        """),
    "emma": _answer(
        "finite_differences",
        """
        n = x.shape[0]
        out = []
        for i in range(n):
            e = torch.nn.functional.one_hot(torch.tensor(i), n).to(x.dtype) * h
            out.append((f(x.detach() + e) - f(x.detach() - e)) / (2 * h))
        return torch.stack(out)
        """,
        "return ((a - b).abs() / torch.clamp(a.abs() + b.abs(), min=1e-8)).max().item()",
        """
        leaf = x.detach().double().clone().requires_grad_(True)
        f(leaf).backward()
        return relative_error(leaf.grad, numerical_gradient(f, leaf.detach()))
        """),
}

QUADRATIC = {
    "ana": _answer(
        "quadratic_fit",
        """
        torch.manual_seed(seed)
        X = torch.rand(n, 1) * 4 - 2
        y = 0.5 * X**2 - X + 1 + noise * torch.randn(n, 1)
        return X, y
        """,
        """
        a = torch.zeros(1, requires_grad=True)
        b = torch.zeros(1, requires_grad=True)
        c = torch.zeros(1, requires_grad=True)
        for _ in range(steps):
            pred = a * X**2 + b * X + c
            loss = ((pred - y) ** 2).mean()
            loss.backward()
            with torch.no_grad():
                for parameter in (a, b, c):
                    parameter -= lr * parameter.grad
                    parameter.grad.zero_()
        return a.item(), b.item(), c.item()
        """),
    "ben": _answer(
        "quadratic_fit",
        """
        torch.manual_seed(seed)
        inputs = torch.rand(n, 1) * 4 - 2
        targets = 0.5 * inputs ** 2 - inputs + 1 + noise * torch.randn(n, 1)
        return inputs, targets
        """,
        """
        params = [torch.zeros((), requires_grad=True) for _ in range(3)]
        a, b, c = params
        for step in range(steps):
            loss = torch.mean((a * X * X + b * X + c - y) ** 2)
            loss.backward()
            with torch.no_grad():
                for p in params:
                    p.sub_(lr * p.grad)
            for p in params:
                p.grad = None
        return tuple(p.item() for p in params)
        """),
    "chloe": _answer(
        "quadratic_fit",
        """
        torch.manual_seed(seed)
        X = torch.rand(n, 1) * 4 - 2
        noise_term = noise * torch.randn(n, 1)
        y = 0.5 * X.pow(2) - X + 1 + noise_term
        return X, y
        """,
        """
        # a, b, c in one leaf tensor; the features are X², X and 1
        coeffs = torch.zeros(3, dtype=X.dtype, requires_grad=True)
        features = torch.cat([X ** 2, X, torch.ones_like(X)], dim=1)
        for _ in range(steps):
            residual = features @ coeffs.unsqueeze(1) - y
            mse = (residual * residual).mean()
            mse.backward()
            with torch.no_grad():
                coeffs -= lr * coeffs.grad
            coeffs.grad.zero_()
        a, b, c = coeffs.tolist()
        return a, b, c
        """),
    "dev": _answer(
        "quadratic_fit",
        """
        torch.manual_seed(seed)
        xs = torch.rand(n, 1) * 4 - 2
        ys = 0.5 * xs**2 - xs + 1 + noise * torch.randn(n, 1)
        return xs, ys
        """,
        """
        a = torch.tensor(0.0, requires_grad=True)
        b = torch.tensor(0.0, requires_grad=True)
        c = torch.tensor(0.0, requires_grad=True)
        optimizer = torch.optim.SGD([a, b, c], lr=lr)
        for _ in range(steps):
            optimizer.zero_grad()
            prediction = a * X.pow(2) + b * X + c
            loss = torch.nn.functional.mse_loss(prediction, y)
            loss.backward()
            optimizer.step()
        return a.item(), b.item(), c.item()
        """),
    "emma": _answer(
        "quadratic_fit",
        """
        torch.manual_seed(seed)
        X = torch.rand(n, 1) * 4 - 2
        y = 0.5 * X**2 - X + 1 + noise * torch.randn(n, 1)
        return X, y
        """,
        """
        a, b, c = (torch.zeros(1, dtype=X.dtype).requires_grad_() for _ in range(3))
        for i in range(steps):
            err = a * X ** 2 + b * X + c - y
            err.pow(2).mean().backward()
            with torch.no_grad():
                a.sub_(lr * a.grad)
                b.sub_(lr * b.grad)
                c.sub_(lr * c.grad)
            a.grad = b.grad = c.grad = None
        return a.item(), b.item(), c.item()
        """),
}

ACCUMULATION = {
    "ana": _answer(
        "grad_accumulation",
        """
        x = torch.tensor(x0, requires_grad=True)
        grads = []
        for _ in range(calls):
            y = x ** 2
            y.backward()
            grads.append(x.grad.item())
        return grads
        """,
        """
        leaf = w.detach().clone().requires_grad_(True)
        rows = X.shape[0]
        for X_part, y_part in zip(torch.tensor_split(X, micro_batches), torch.tensor_split(y, micro_batches)):
            part_loss = ((X_part @ leaf - y_part) ** 2).sum() / rows
            part_loss.backward()  # adds this group's share into leaf.grad
        return leaf.grad.detach()
        """),
    "ben": _answer(
        "grad_accumulation",
        """
        x = torch.tensor(x0, requires_grad=True)
        out = []
        while len(out) < calls:
            (x ** 2).backward()
            out.append(float(x.grad))
        return out
        """,
        """
        w_leaf = w.detach().clone()
        w_leaf.requires_grad_(True)
        N = len(y)
        X_parts = torch.tensor_split(X, micro_batches)
        y_parts = torch.tensor_split(y, micro_batches)
        for i in range(micro_batches):
            # each part is divided by all N rows, so the parts add up to the mean
            err = X_parts[i] @ w_leaf - y_parts[i]
            (err.pow(2).sum() / N).backward()
        return w_leaf.grad
        """),
    "chloe": _answer(
        "grad_accumulation",
        """
        x = torch.tensor(x0, requires_grad=True)
        history = []
        for call in range(calls):
            y = x ** 2
            y.backward()
            history.append(x.grad.item())
        return history
        """,
        """
        param = torch.tensor(w.tolist(), dtype=w.dtype, requires_grad=True)
        total = X.shape[0]
        for xb, yb in zip(torch.tensor_split(X, micro_batches), torch.tensor_split(y, micro_batches)):
            loss = torch.nn.functional.mse_loss(xb @ param, yb, reduction="sum") / total
            loss.backward()
        return param.grad.detach()
        """),
    "dev": _answer(
        "grad_accumulation",
        """
        x = torch.tensor(x0, requires_grad=True)
        values = [0.0] * calls
        for k in range(calls):
            (x * x).backward()
            values[k] = x.grad.item()
        return values
        """,
        """
        leaf = w.detach().requires_grad_()
        n_rows = len(X)
        for rows in torch.tensor_split(torch.arange(n_rows), micro_batches):
            piece = ((X[rows] @ leaf - y[rows]) ** 2).sum() / n_rows
            piece.backward()
        return leaf.grad.clone()
        """),
    "emma": _answer(
        "grad_accumulation",
        """
        x = torch.tensor(x0, requires_grad=True)
        grads = []
        for _ in range(calls):
            loss = x ** 2
            loss.backward()
            grads.append(x.grad.item())
        return grads
        """,
        """
        v = w.clone().detach().requires_grad_(True)
        count = X.size(0)
        pieces = zip(torch.tensor_split(X, micro_batches), torch.tensor_split(y, micro_batches))
        for inputs, targets in pieces:
            residuals = inputs @ v - targets
            (residuals.square().sum() / count).backward()
        return v.grad.detach()
        """),
}

# Copies: an answer of a classmate, disguised. -----------------------------------------------------------------

# finn took ben's grad_accumulation: new names, new comments, the two independent splits swapped.
FINN_ACCUMULATION = _answer(
    "grad_accumulation",
    """
    # make x and differentiate it again and again
    t = torch.tensor(x0, requires_grad=True)
    seen = []
    while len(seen) < calls:
        (t ** 2).backward()
        seen.append(float(t.grad))  # the grad keeps growing
    return seen
    """,
    """
    weights = w.detach().clone()
    weights.requires_grad_(True)
    total_rows = len(y)
    target_chunks = torch.tensor_split(y, micro_batches)
    input_chunks = torch.tensor_split(X, micro_batches)
    for j in range(micro_batches):
        diff = input_chunks[j] @ weights - target_chunks[j]
        (diff.pow(2).sum() / total_rows).backward()  # sum over the chunk, divided by everything
    return weights.grad
    """)

# gus took chloe's finite_differences: new names, new comments, the numerator and denominator swapped.
GUS_FINITE = _answer(
    "finite_differences",
    """
    steps = torch.eye(x.shape[0], dtype=x.dtype) * h  # identity matrix times h
    origin = x.detach()
    estimates = [(f(origin + d) - f(origin - d)) / (2 * h) for d in steps]
    return torch.stack(estimates)
    """,
    """
    bottom = torch.maximum(a.abs() + b.abs(), torch.full_like(a, 1e-8))
    top = (a - b).abs()
    r = top / bottom
    return r.max().item() if r.numel() else 0.0
    """,
    """
    # float64 copy that needs grad
    z = x.detach().to(dtype=torch.float64)
    leaf = z.clone()
    leaf.requires_grad = True
    value = f(leaf)
    value.backward()
    return relative_error(leaf.grad, numerical_gradient(f, z))
    """)

# An earlier term: zoe's sin_exp_derivative, which yan handed in too (that term's business, not this one's).
ZOE_SIN_EXP = _answer(
    "sin_exp_derivative",
    "return torch.sin(x) * torch.exp(-x)",
    """
    probe = x.detach().clone()
    probe.requires_grad_(True)
    total = f(probe).sum()
    total.backward()
    slope = probe.grad
    return slope.detach()
    """,
    """
    decay = torch.exp(-x)
    return decay * torch.cos(x) - decay * torch.sin(x)
    """,
    """
    pts = torch.linspace(start, end, n)
    gap = (autograd_derivative(pts) - analytic_derivative(pts)).abs()
    return float(gap.max())
    """)

# jay took zoe's, renamed.
JAY_SIN_EXP = _answer(
    "sin_exp_derivative",
    "return torch.sin(x) * torch.exp(-x)  # f",
    """
    z = x.detach().clone()
    z.requires_grad_(True)
    s = f(z).sum()
    s.backward()  # autograd
    d = z.grad
    return d.detach()
    """,
    """
    e = torch.exp(-x)
    return e * torch.cos(x) - e * torch.sin(x)
    """,
    """
    grid = torch.linspace(start, end, n)
    diff = (autograd_derivative(grid) - analytic_derivative(grid)).abs()
    return float(diff.max())
    """)

HONEST = ("ana", "ben", "chloe", "dev", "emma")

# Copies edited beyond renaming: an expression commuted or split, lines reordered, a loop or a return rewritten.
EDITED = {  # (exercise, whose answer was copied) -> the copy
    ("sin_exp_derivative", "ana"): _answer(
        "sin_exp_derivative",
        "return torch.sin(x) * torch.exp(-x)",
        """
        z = x.detach().clone().requires_grad_(True)  # copy
        f(z).sum().backward()
        return z.grad.detach()
        """,
        "return (torch.cos(x) - torch.sin(x)) * torch.exp(-x)",
        """
        pts = torch.linspace(start, end, n)
        d = autograd_derivative(pts) - analytic_derivative(pts)
        return d.abs().max().item()
        """),
    ("finite_differences", "dev"): _answer(
        "finite_differences",
        """
        count = x.numel()
        out = x.new_zeros(count)
        with torch.no_grad():
            for k in range(count):
                lo = x.clone()
                lo[k] = lo[k] - h
                hi = x.clone()
                hi[k] = hi[k] + h
                out[k] = (f(hi) - f(lo)) / (h + h)
        return out
        """,
        """
        biggest = 0.0
        for u, v in zip(a.flatten().tolist(), b.flatten().tolist()):
            r = abs(u - v) / max(1e-8, abs(u) + abs(v))
            if r > biggest:
                biggest = r
        return biggest
        """,
        """
        p = torch.tensor(x.tolist(), dtype=torch.float64, requires_grad=True)
        f(p).backward()
        return relative_error(p.grad, numerical_gradient(f, p.detach()))
        """),
    ("quadratic_fit", "chloe"): _answer(
        "quadratic_fit",
        """
        torch.manual_seed(seed)
        X = torch.rand(n, 1) * 4 - 2
        eps = noise * torch.randn(n, 1)
        y = 0.5 * X.pow(2) - X + 1 + eps
        return X, y
        """,
        """
        design = torch.cat([X ** 2, X, torch.ones_like(X)], dim=1)
        theta = torch.zeros(3, dtype=X.dtype, requires_grad=True)
        for _ in range(steps):
            r = design @ theta.unsqueeze(1) - y
            loss = r.pow(2).mean()
            loss.backward()
            with torch.no_grad():
                theta -= lr * theta.grad
            theta.grad.zero_()
        return tuple(theta.tolist())
        """),
    ("grad_accumulation", "emma"): _answer(
        "grad_accumulation",
        """
        t = torch.tensor(x0, requires_grad=True)
        gs = []
        for _ in range(calls):
            out = t ** 2
            out.backward()
            gs.append(t.grad.item())
        return gs
        """,
        """
        n = X.size(0)
        leaf = w.clone().detach().requires_grad_(True)
        for a, b in zip(torch.tensor_split(X, micro_batches), torch.tensor_split(y, micro_batches)):
            res = a @ leaf - b
            (res.square().sum() / n).backward()
        return leaf.grad.detach()
        """),
    ("quadratic_fit", "ben"): _answer(
        "quadratic_fit",
        """
        torch.manual_seed(seed)
        xs = torch.rand(n, 1) * 4 - 2
        ys = 0.5 * xs ** 2 - xs + 1 + noise * torch.randn(n, 1)
        return xs, ys
        """,
        """
        ps = [torch.zeros((), requires_grad=True) for _ in range(3)]
        p0, p1, p2 = ps
        for it in range(steps):
            l = torch.mean((p0 * X * X + p1 * X + p2 - y) ** 2)
            l.backward()
            with torch.no_grad():
                for q in ps:
                    q.sub_(lr * q.grad)
            for q in ps:
                q.grad = None
        return tuple(q.item() for q in ps)
        """),
}


def _honest_class() -> dict[str, dict[str, str]]:
    return {student: {slug: written[student] for slug, written in WRITTEN.items()} for student in HONEST}


def _class() -> dict[str, dict[str, str]]:
    """The honest five, two copiers (stubs elsewhere), two who handed the stubs back, and jay (zoe's copy)."""
    return {**_honest_class(),
            "finn": {**STUB_TEXTS, "grad_accumulation": FINN_ACCUMULATION},
            "gus": {**STUB_TEXTS, "finite_differences": GUS_FINITE},
            "hana": dict(STUB_TEXTS),
            "ivan": dict(STUB_TEXTS),
            "jay": {**STUB_TEXTS, "sin_exp_derivative": JAY_SIN_EXP}}


WRITTEN = dict(zip(EXERCISES, (SIN_EXP, FINITE, QUADRATIC, ACCUMULATION)))
COPIES = {("grad_accumulation", "ben", "finn"), ("finite_differences", "chloe", "gus")}
ARCHIVE = {"2025-fall/zoe": {"sin_exp_derivative": ZOE_SIN_EXP},
           "2025-fall/yan": {"sin_exp_derivative": ZOE_SIN_EXP},  # identical: that term's business, not ours
           "2025-fall/xia": dict(STUB_TEXTS)}


def _pairs(pairs: list[Pair]) -> set[tuple[str, str, str]]:
    return {(pair.exercise, pair.first, pair.second) for pair in pairs}


def _names(pairs: list[Pair]) -> set[str]:
    return {name for pair in pairs for name in (pair.first, pair.second)}


def _lines_of(source: str, *texts: str) -> set[int]:
    """The numbers of the source lines that hold each of `texts`."""
    numbers = {number for number, line in enumerate(source.splitlines(), 1) if any(text in line for text in texts)}
    assert len(numbers) == len(texts), f"expected one line for each of {texts}, found lines {sorted(numbers)}"
    return numbers


def _marked(blocks: list[tuple[int, int]]) -> set[int]:
    return {line for first, last in blocks for line in range(first, last + 1)}


def test_the_copies_and_only_the_copies_are_listed() -> None:
    pairs = similar_pairs(_class(), STUB_TEXTS)
    assert _pairs(pairs) == COPIES, f"listed {pairs}"
    assert all(pair.similarity >= 0.9 for pair in pairs), f"a copy with new names and comments scored low: {pairs}"


def test_a_copy_with_new_names_and_comments_is_found_with_its_blocks() -> None:
    pair = next(pair for pair in similar_pairs(_class(), STUB_TEXTS) if pair.exercise == "grad_accumulation")
    ben, finn = ACCUMULATION["ben"], FINN_ACCUMULATION
    copied = _lines_of(ben, "out = []", "err = X_parts[i] @ w_leaf", "return w_leaf.grad")
    assert copied <= _marked(pair.first_blocks), f"ben's copied lines {copied}, marked {pair.first_blocks}"
    copied = _lines_of(finn, "seen = []", "diff = input_chunks[j] @ weights", "return weights.grad")
    assert copied <= _marked(pair.second_blocks), f"finn's copied lines {copied}, marked {pair.second_blocks}"
    # Only code the student wrote is marked: no docstring, signature or comment, nor a line the docstring dictates.
    for source, blocks in ((ben, pair.first_blocks), (finn, pair.second_blocks)):
        for number in sorted(_marked(blocks)):
            line = source.splitlines()[number - 1].strip()
            assert line and line not in STUB_TEXTS["grad_accumulation"] and not line.startswith("#") \
                and "torch.tensor(x0, requires_grad=True)" not in line, f"line {number} marked: {line!r}"


def test_copies_edited_beyond_renaming_are_found() -> None:
    for (slug, original), copy in EDITED.items():
        answers = {student: {slug: source} for student, source in WRITTEN[slug].items()} | {"zed": {slug: copy}}
        found = {(pair.first, pair.second): round(pair.similarity, 3) for pair in similar_pairs(answers, STUB_TEXTS)}
        assert found.keys() == {(original, "zed")}, f"{slug}: a copy of {original}'s answer gave {found}"


def test_no_pair_of_honest_answers_is_listed() -> None:
    pairs = similar_pairs(_honest_class(), STUB_TEXTS)
    assert pairs == [], f"honest answers listed: {pairs}"


def test_honest_answers_stay_below_the_threshold() -> None:
    # The closest honest pair: ana's and chloe's grad_accumulation, whose first function the docstring dictates.
    closest = similar_pairs(_honest_class(), STUB_TEXTS, threshold=0.0)[0]
    assert 0.6 < closest.similarity < THRESHOLD - 0.02, f"the closest honest pair is {closest}"


def test_untouched_stubs_are_never_paired() -> None:
    commented = {slug: stub.replace(TODO, "    # I did not get this one\n" + TODO) for slug, stub in STUB_TEXTS.items()}
    no_docstrings = {slug: re.sub(r'"""[^"]*"""', "", stub) for slug, stub in STUB_TEXTS.items()}
    answers = {"hana": dict(STUB_TEXTS), "ivan": dict(STUB_TEXTS), "kim": commented, "lou": no_docstrings,
               "max": {slug: "" for slug in STUB_TEXTS}}
    pairs = similar_pairs(answers, STUB_TEXTS, threshold=0.0)
    assert pairs == [], f"untouched stubs paired: {pairs}"
    pairs = similar_pairs({**_class(), **answers}, STUB_TEXTS, threshold=0.0)
    assert not set(answers) & _names(pairs), f"untouched stubs paired: {pairs}"


def test_the_one_liner_everyone_writes_is_not_copying() -> None:
    # Two students wrote only f, the way most of a class does: all of their own code is shared, and it is one line.
    only_f = _answer("sin_exp_derivative", "return torch.sin(x) * torch.exp(-x)", TODO, TODO, TODO)
    answers = {"oli": {"sin_exp_derivative": only_f}, "pia": {"sin_exp_derivative": only_f},
               "ana": {"sin_exp_derivative": SIN_EXP["ana"]}}
    pairs = similar_pairs(answers, STUB_TEXTS, threshold=0.0)
    assert pairs == [], f"a shared one-liner listed: {pairs}"


def test_code_most_of_a_class_wrote_alike_is_not_copying_but_a_rarer_copy_still_is() -> None:
    # Twelve students hand in the reference's answer: in a big class, the obvious answer is common.
    reference = (course_config.ROOT / "reference" / "lesson01" / "quadratic_fit.py").read_text()
    answers = {f"s{number:02d}": {"quadratic_fit": reference} for number in range(12)}
    answers |= {"ben": {"quadratic_fit": QUADRATIC["ben"]}, "zed": {"quadratic_fit": EDITED["quadratic_fit", "ben"]}}
    pairs = similar_pairs(answers, STUB_TEXTS)
    assert _pairs(pairs) == {("quadratic_fit", "ben", "zed")}, f"listed {pairs}"


def test_the_archive_finds_a_copy_of_an_earlier_term_and_never_pairs_two_archived_answers() -> None:
    pairs = similar_pairs(_class(), STUB_TEXTS, archive=ARCHIVE)
    assert _pairs(pairs) == COPIES | {("sin_exp_derivative", "2025-fall/zoe", "jay"),
                                      ("sin_exp_derivative", "2025-fall/yan", "jay")}, f"listed {pairs}"
    zoe = next(pair for pair in pairs if pair.first == "2025-fall/zoe")
    copied = _lines_of(JAY_SIN_EXP, "z = x.detach().clone()", "return float(diff.max())")
    assert copied <= _marked(zoe.second_blocks), f"jay's copied lines {copied}, marked {zoe.second_blocks}"
    everything = similar_pairs(_class(), STUB_TEXTS, archive=ARCHIVE, threshold=0.0)
    assert not [pair for pair in everything if pair.first in ARCHIVE and pair.second in ARCHIVE], \
        f"two archived answers paired: {everything}"


def test_the_output_is_the_same_whatever_the_order_of_the_input_and_the_process() -> None:
    first = similar_pairs(_class(), STUB_TEXTS, archive=ARCHIVE, threshold=0.3)
    again = similar_pairs(dict(reversed(_class().items())), STUB_TEXTS, archive=dict(reversed(ARCHIVE.items())),
                          threshold=0.3)
    assert again == first, f"{first}\nthen\n{again}"
    assert [pair.similarity for pair in first] == sorted((pair.similarity for pair in first), reverse=True)
    # winnowing.py hashes k-grams with Python's str hash, which changes with every process: the figures must not
    data = json.dumps({"answers": _class(), "stubs": STUB_TEXTS, "archive": ARCHIVE})
    script = ("import json, sys\nfrom graders.frontends.grade.outputs.similarity import similar_pairs, similarity_csv\n"
              "d = json.loads(sys.stdin.read())\n"
              "print(similarity_csv(similar_pairs(d['answers'], d['stubs'], archive=d['archive'], threshold=0.3)))")
    outputs = {subprocess.run([sys.executable, "-c", script], input=data, capture_output=True, text=True, check=True,
                              cwd=course_config.ROOT, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
               for seed in ("1", "2")}
    assert outputs == {similarity_csv(first) + "\n"}, f"another process gave {outputs}"


def test_the_csv_has_a_row_per_pair_with_its_lines() -> None:
    pairs = similar_pairs(_class(), STUB_TEXTS, archive=ARCHIVE)
    rows = list(csv.DictReader(io.StringIO(similarity_csv(pairs))))
    assert [(row["exercise"], row["first"], row["second"]) for row in rows] == \
           [(pair.exercise, pair.first, pair.second) for pair in pairs], f"rows {rows}"
    finn = next(row for row in rows if row["second"] == "finn")
    assert float(finn["similarity"]) >= 0.9 and re.fullmatch(r"\d+(-\d+)?( \d+(-\d+)?)*", finn["first_lines"]), finn
    assert similarity_csv([]) == "exercise,first,second,similarity,first_lines,second_lines\n"


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match=r"threshold must be between 0 and 1, got 1\.5"):
        similar_pairs(_class(), STUB_TEXTS, threshold=1.5)
    with pytest.raises(ValueError, match=r"no stub for exercise 'views'"):
        similar_pairs({"ana": {"views": "x = 1\n"}}, STUB_TEXTS)
    with pytest.raises(ValueError, match=r"\['ana'\] named both in answers and in archive"):
        similar_pairs(_class(), STUB_TEXTS, archive={"ana": {}})
    with pytest.raises(ValueError, match=r"no answer of 'nobody' to 'views'"):
        similarity_html([Pair("views", "ana", "nobody", 1.0, [], [])], {"ana": {"views": ""}})
