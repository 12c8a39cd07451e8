"""Lesson 1, Quick Check: ten multiple-choice questions on tensors and autograd.

Reference solution (instructor side: it holds the answers in plain text). The stub in
exercises/lesson01/ has the same names, signatures, docstrings and questions.

Every question comes from the lesson or its companion text; the section to re-read is
named after each question. The public checks grade form A in pairs of questions, so a
wrong answer costs only its own pair; a hidden check asks the same questions again as
form B, with the options in another order.

Form A (the public checks ask this one)

 1. As in the lesson's first example, d = torch.arange(6). What is d.dtype?
      a) torch.float32
      b) torch.float64
      c) torch.int64
      d) torch.int32
    ("Tensors")

 2. X = torch.from_numpy(arr), where arr is a NumPy array of floats, and model =
    nn.Linear(1, 1) has float32 weights. What does model(X) do?
      a) It raises a RuntimeError ("mat1 and mat2 must have the same dtype"); X.float() is
         needed first.
      b) It works: PyTorch quietly converts X to float32 so that it matches the weights.
      c) It works, and the weights are turned into float64 to match X from then on.
    ("Tensors", and "Common pitfalls": mixing dtypes)

 3. pred has shape (100, 1) and y has shape (100,). What is the shape of pred - y?
      a) (100, 1)
      b) (100,)
      c) None: it raises an error, because the shapes differ.
      d) (100, 100)
    ("Common pitfalls": shape mismatches; companion: "Shapes and Broadcasting")

 4. x = torch.arange(12).reshape(3, 4) and t = x.T, of shape (4, 3). What does t.view(12)
    do?
      a) It returns t's twelve numbers row by row, as a view sharing memory with x.
      b) It raises an error, because t is not contiguous.
      c) It returns 0, 1, ..., 11 in x's order, because view does not see the transpose.
      d) It copies t into fresh memory first, as reshape would, then returns them.
    (companion: "Reshape vs. View vs. Contiguous")

 5. x = torch.tensor(3.0, requires_grad=True), then three times: y = x ** 2 and
    y.backward(), with no zeroing in between. What is x.grad after the third call?
      a) 6.0
      b) None: the second call raises an error, because backward() runs once only.
      c) 18.0
    ("Worked example", where it explains w.grad.zero_())

 6. Deep-learning frameworks differentiate in reverse mode. Why?
      a) One scalar loss and many parameters: one backward pass gives the gradient for all
         of them.
      b) Forward mode only estimates derivatives, as finite differences do; reverse mode is
         exact.
      c) Reverse mode records no computation graph, so it needs much less memory.
      d) Only reverse mode lets Python loops and if statements run inside a model.
    (companion: "Why Do We Need Automatic Differentiation?", "Forward Mode vs. Reverse Mode"
    and "Key Takeaways")

 7. You evaluate a trained model on validation data and want PyTorch to record no graph at
    all. What do you use?
      a) .detach() on the model's output
      b) with torch.no_grad(): around the evaluation
      c) the parameters' .data, in place of the parameters
    (companion: "The Detach / no_grad / .data Triangle")

 8. w = torch.zeros(3, requires_grad=True). What does w.numpy() do?
      a) It returns an array sharing memory with w, as for any other tensor.
      b) It returns the array, and w stops requiring grad from then on.
      c) PyTorch refuses; w.data.numpy() is the recommended way to get the array.
      d) PyTorch refuses, since NumPy cannot hold the graph; use w.detach().numpy().
    ("Common pitfalls": calling .numpy() on a tracked tensor)

 9. In the hand-written gradient descent on the line, the learning rate goes from 0.1 to
    1.1. What happens?
      a) The loss reaches 0.0597 in fewer steps, because each step goes further downhill.
      b) The loss falls to about 0.0597 as before, then wobbles a little around that value.
      c) The loss grows at every step: each step overshoots the bottom and lands higher up.
    ("Worked example" and "Try it yourself", exercise 1)

10. In the worked example the loss stays at 0.0597 from step 40 on, not 0. Why?
      a) 101 steps are not enough: with more steps the loss would keep falling towards 0.
      b) The noise in y has standard deviation 0.3 (variance 0.09), and no line can explain
         noise.
      c) float32 rounding errors add up over the steps and keep the loss from reaching 0.
      d) The learning rate 0.1 is too large for the steps to settle exactly at the minimum.
    ("Worked example", "Reading the output")

Form B (a hidden check asks this one)

The same ten questions, each with its options in another order. Answer it as you
answered form A, by what the options say, not by their letters.

 1. d.dtype:
      a) torch.int64
      b) torch.int32
      c) torch.float32
      d) torch.float64

 2. model(X):
      a) It works: PyTorch quietly converts X to float32 so that it matches the weights.
      b) It works, and the weights are turned into float64 to match X from then on.
      c) It raises a RuntimeError ("mat1 and mat2 must have the same dtype"); X.float() is
         needed first.

 3. pred - y:
      a) (100,)
      b) (100, 100)
      c) (100, 1)
      d) None: it raises an error, because the shapes differ.

 4. t.view(12):
      a) It returns 0, 1, ..., 11 in x's order, because view does not see the transpose.
      b) It returns t's twelve numbers row by row, as a view sharing memory with x.
      c) It copies t into fresh memory first, as reshape would, then returns them.
      d) It raises an error, because t is not contiguous.

 5. x.grad after the third call:
      a) 18.0
      b) 6.0
      c) None: the second call raises an error, because backward() runs once only.

 6. Why reverse mode:
      a) Only reverse mode lets Python loops and if statements run inside a model.
      b) Reverse mode records no computation graph, so it needs much less memory.
      c) One scalar loss and many parameters: one backward pass gives the gradient for all
         of them.
      d) Forward mode only estimates derivatives, as finite differences do; reverse mode is
         exact.

 7. No graph during evaluation:
      a) the parameters' .data, in place of the parameters
      b) .detach() on the model's output
      c) with torch.no_grad(): around the evaluation

 8. w.numpy():
      a) PyTorch refuses; w.data.numpy() is the recommended way to get the array.
      b) PyTorch refuses, since NumPy cannot hold the graph; use w.detach().numpy().
      c) It returns an array sharing memory with w, as for any other tensor.
      d) It returns the array, and w stops requiring grad from then on.

 9. Learning rate 1.1:
      a) The loss falls to about 0.0597 as before, then wobbles a little around that value.
      b) The loss grows at every step: each step overshoots the bottom and lands higher up.
      c) The loss reaches 0.0597 in fewer steps, because each step goes further downhill.

10. Why 0.0597 and not 0:
      a) float32 rounding errors add up over the steps and keep the loss from reaching 0.
      b) The learning rate 0.1 is too large for the steps to settle exactly at the minimum.
      c) 101 steps are not enough: with more steps the loss would keep falling towards 0.
      d) The noise in y has standard deviation 0.3 (variance 0.09), and no line can explain
         noise.
"""


def answers(form: str = "A") -> dict[int, str]:
    """Your choice for each question of the given form.

    The public checks call answers() (form A). When your work is graded they also call
    answers("B"), and a pair of questions scores only if both forms answer it right; a
    hidden check calls answers("B") too. The two forms ask the same questions, so the
    same options are right in both, but the letters differ: a form B that repeats form
    A's letters scores nothing.

    Args:
        form: "A" or "B", the form whose letters to give.

    Returns:
        A dict from each question number (the ints 1 to 10) to the letter of the
        option you choose, a string such as "a" or "d" (upper case, "A", reads the same),
        for example {1: "d", 2: "b", ...} (these two are only an example of the format).
    """
    # Form A's right options; form B lists the same options in another order.
    chosen = {
        "A": {1: "c", 2: "a", 3: "d", 4: "b", 5: "c", 6: "a", 7: "b", 8: "d", 9: "c", 10: "b"},
        "B": {1: "a", 2: "c", 3: "b", 4: "d", 5: "a", 6: "c", 7: "c", 8: "b", 9: "b", 10: "d"},
    }
    if form not in chosen:
        raise ValueError(f"form must be 'A' or 'B', not {form!r}")
    return dict(chosen[form])
