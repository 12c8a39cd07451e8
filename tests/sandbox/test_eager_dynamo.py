"""The torch._dynamo stand-in: eager optimisers run without the compiler's import, and
anything that needs the compiler still gets the real module."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import sys, torch
from graders.sandbox import eager_dynamo
eager_dynamo.install()
model = torch.nn.Linear(1, 1)
optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    optimiser.zero_grad()
    torch.nn.functional.mse_loss(model(torch.ones(4, 1)), torch.zeros(4, 1)).backward()
    optimiser.step()
print("eager", type(sys.modules["torch._dynamo"]).__name__)
compiled = torch.compile(lambda a: a * 2, backend="eager")
print("compiled", compiled(torch.ones(2)).tolist(), type(sys.modules["torch._dynamo"]).__name__)
"""


def test_optimisers_step_without_the_compiler_and_compile_still_works() -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "eager _EagerStandIn" in done.stdout
    assert "compiled [2.0, 2.0] module" in done.stdout


VJP_PROGRAM = """
import sys, torch
from graders.sandbox import eager_dynamo
eager_dynamo.install()
x = torch.tensor([0.3, 1.2], dtype=torch.float64)
out, pullback = torch.func.vjp(lambda v: (v.sin() * v).sum(), x)
(gradient,) = pullback(torch.ones_like(out))
print("right", torch.allclose(gradient, x.cos() * x + x.sin()))
print("eager", type(sys.modules["torch._dynamo"]).__name__)
"""


def test_vjps_pullback_runs_without_the_compiler() -> None:
    # A zygote that imported the compiler would make every worker it forks slower to start and end.
    done = subprocess.run([sys.executable, "-c", VJP_PROGRAM], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "right True" in done.stdout and "eager _EagerStandIn" in done.stdout
