"""The named mistakes of `quick_check`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import Mistake


STUB = "exercises/lesson01/quick_check.py"

TENSORS = '"Tensors": the first example, and "Three attributes describe every tensor"'

DTYPES = '"Common pitfalls": mixing dtypes'

BROADCASTING = '"Common pitfalls": shape mismatches that broadcast silently; the companion\'s "Shapes and Broadcasting"'

VIEWS = 'the companion\'s "Reshape vs. View vs. Contiguous"'

ACCUMULATION = '"Worked example", the loop that calls backward() three times on x ** 2'

AUTODIFF = ('the companion\'s "Why Do We Need Automatic Differentiation?", "Forward Mode vs. Reverse Mode" and '
            '"Key Takeaways"')

DYNAMIC = 'the companion\'s "Dynamic vs. Static Graphs", and "define by run" at the end of "Autograd"'

TRIANGLE = 'the companion\'s "The Detach / no_grad / .data Triangle"'

NUMPY = '"Common pitfalls": calling .numpy() on a tracked tensor'

RATE = '"Try it yourself", exercise 1, and "The intuition" (stepping downhill)'

READING = '"Worked example", "Reading the output"'

ARANGE_AS_FLOAT32 = Mistake(
    "arange taken for float32",
    "float32 is the usual dtype of data and weights, and what a list of floats becomes; but torch.arange(6) is "
    "made of whole numbers only, and a tensor of whole numbers gets an integer dtype.",
    "Print torch.arange(6).dtype, and read the comment beside d = torch.arange(6) in the lesson.",
    TENSORS,
    concept="dtypes",
)

NUMPY_FLOAT64_EXPECTED = Mistake(
    "NumPy's float64 expected",
    "float64 is NumPy's default for arrays of floats, and torch.from_numpy keeps it; torch.arange(6) comes "
    "neither from NumPy nor from floats.",
    "Print torch.arange(6).dtype, and read the comment beside d = torch.arange(6) in the lesson.",
    TENSORS,
    concept="dtypes",
)

INT32_AS_DEFAULT = Mistake(
    "int32 taken for the default integer type",
    "int32 is an integer dtype, but not the one PyTorch picks for whole numbers unless asked; the lesson names "
    "that default where it says which dtype class labels use.",
    "Print torch.arange(6).dtype, and read the lesson's line on dtype under \"Three attributes\".",
    TENSORS,
    concept="dtypes",
)

DTYPES_CONVERT_THEMSELVES = Mistake(
    "mixed dtypes assumed to convert themselves",
    "PyTorch converts neither a float64 input to the weights' float32 nor the weights to the input's float64: "
    "torch.from_numpy keeps NumPy's float64, and the matrix multiply inside nn.Linear needs one dtype on both sides.",
    "Try nn.Linear(1, 1)(torch.from_numpy(np.ones((3, 1)))) and read what PyTorch says.",
    DTYPES,
    concept="dtypes",
)

ALIGNED_FROM_THE_LEFT = Mistake(
    "shapes lined up from the left",
    "Broadcasting compares dimensions from the right: y's one dimension of 100 lines up with pred's last "
    "dimension, the one of size 1, and y's missing dimension on the left counts as 1.",
    "Write the two shapes right-aligned, one under the other, and apply the rules to each pair; or print "
    "(torch.zeros(100, 1) - torch.zeros(100)).shape.",
    BROADCASTING,
    concept="broadcasting",
)

SIZE_ONE_VANISHES = Mistake(
    "size-1 dimension assumed to vanish",
    "Broadcasting never removes a dimension: the result has as many dimensions as the larger operand, and a "
    "dimension of size 1 is stretched to the other side's size, not dropped.",
    "Write the two shapes right-aligned, one under the other, and apply the rules to each pair; or print "
    "(torch.zeros(100, 1) - torch.zeros(100)).shape.",
    BROADCASTING,
    concept="broadcasting",
)

MISMATCH_RAISES = Mistake(
    "mismatched shapes assumed to raise",
    "Different shapes raise an error only when some pair of dimensions differs and neither of them is 1. Here every "
    "pair matches under the rules, so PyTorch computes a result without a word: that is why the lesson calls "
    "this pitfall silent.",
    "Write the two shapes right-aligned, one under the other, and apply the rules to each pair.",
    BROADCASTING,
    concept="broadcasting",
)

VIEW_OF_NON_CONTIGUOUS = Mistake(
    "view used on a non-contiguous tensor",
    "view only gives the memory a tensor already has a new shape, so it works only on a contiguous tensor (laid out "
    "in row-major order). A transpose leaves x's memory as it was, so x.T is not contiguous: that is why the "
    "companion calls for .contiguous() after .transpose() and before .view().",
    "Print x.T.is_contiguous(), then try x.T.view(12) yourself.",
    VIEWS,
    concept="views",
)

VIEW_AS_RESHAPE = Mistake(
    "view confused with reshape",
    "Copying when it has to is what reshape does. view never copies: it shares the tensor's memory under the new "
    "shape, and that is only possible for some layouts.",
    "Compare the companion's lines on .view() and .reshape(), then try x.T.view(12) yourself.",
    VIEWS,
    concept="views",
)

GRAD_OVERWRITTEN = Mistake(
    "backward assumed to overwrite .grad",
    "backward() does not replace what is in x.grad: it adds the new gradient to it. The derivative of x² at 3 is "
    "the same on every call, and nothing clears .grad between the calls.",
    "Run the lesson's three-call loop and print x.grad after each call.",
    ACCUMULATION,
    concept="accumulation",
)

BACKWARD_ONCE_ONLY = Mistake(
    "backward assumed to run once only",
    "Each pass of the loop computes y = x ** 2 afresh, and so records a new graph: backward() may run on every "
    "pass. What the repeated calls change is the content of x.grad.",
    "Run the lesson's three-call loop and print x.grad after each call.",
    ACCUMULATION,
    concept="accumulation",
)

FORWARD_MODE_AS_FINITE_DIFFERENCES = Mistake(
    "forward mode taken for finite differences",
    "Forward and reverse mode are both automatic differentiation: both apply the chain rule to recorded "
    "operations and give exact derivatives. Estimates like (f(x+h) − f(x−h)) / 2h are the numerical option, a "
    "different method.",
    "Re-read the three options for computing gradients in the companion, and the one reason it gives for "
    "choosing between the two modes.",
    AUTODIFF,
    concept="forward_vs_reverse",
)

REVERSE_MODE_WITHOUT_GRAPH = Mistake(
    "reverse mode thought to record no graph",
    "Reverse mode cannot work without the graph: every operation logs itself on the way forward, and backward() "
    "walks that log from the loss back to the inputs.",
    "Re-read the companion's \"Key Takeaways\" on what reverse-mode autograd does.",
    AUTODIFF,
    concept="forward_vs_reverse",
)

REVERSE_MODE_AS_DYNAMIC_GRAPH = Mistake(
    "reverse mode confused with dynamic graphs",
    "Loops and if statements work in a PyTorch model because its graph is built as Python runs (define by run). "
    "That is a choice about when the graph is made, not about the direction the chain rule is applied in.",
    "Re-read why the companion says reverse mode is right for deep learning: it is about the numbers of inputs "
    "and outputs.",
    DYNAMIC,
    concept="forward_vs_reverse",
)

DETACH_AS_NO_GRAD = Mistake(
    "detach taken for no_grad",
    "detach() cuts one tensor from the graph after it has been computed, so by then the whole forward pass has "
    "been recorded. The companion names another of its three tools for inference and validation.",
    "Re-read what each tool of the companion's triangle does, and which one it gives for evaluation.",
    TRIANGLE,
    concept="detach_and_no_grad",
)

DATA_TO_STOP_TRACKING = Mistake(
    ".data used to stop tracking",
    ".data reaches the storage behind autograd's back: what is done through it is invisible to autograd, and the "
    "companion calls it almost always the wrong choice.",
    "Re-read the companion's triangle: of its three tools, one is never the answer.",
    TRIANGLE,
    concept="detach_and_no_grad",
)

NUMPY_OF_TRACKED_TENSOR = Mistake(
    ".numpy() assumed to work on a tracked tensor",
    "A NumPy array cannot hold the autograd graph, so PyTorch refuses to turn a tensor that requires grad into "
    "one: it neither makes the array quietly nor changes the tensor.",
    "Run torch.zeros(3, requires_grad=True).numpy() and read the message.",
    NUMPY,
    concept="detach_and_no_grad",
)

LARGER_RATE_IS_FASTER = Mistake(
    "larger learning rate assumed faster",
    "A bigger step helps only while it does not carry the parameters past the bottom of the valley. Steps 11 "
    "times the lesson's are far too large for this loss.",
    "Run the worked example's loop with lr = 1.1 and print the loss and w of the first five steps.",
    RATE,
    concept="learning_rate",
)

OVERSHOOT_SETTLES = Mistake(
    "overshooting assumed to settle",
    "A wobble dies down only when each overshoot is smaller than the one before, and whether it is depends on "
    "how large the step is: exercise 1 of \"Try it yourself\" asks you to watch what a step of 1.1 does.",
    "Run the worked example's loop with lr = 1.1 and print the loss and w of the first five steps.",
    RATE,
    concept="learning_rate",
)

TOO_FEW_STEPS = Mistake(
    "remaining loss taken for too few steps",
    "The printout shows the loss, w and b unchanged from step 40 to step 100: the descent has already stopped at "
    "the best line, so more steps cannot lower the loss.",
    "Read the lesson's explanation of the printout, the third point under \"Reading the output\".",
    READING,
    concept="training_loop",
)

ROUNDING_BLAMED = Mistake(
    "remaining loss blamed on rounding",
    "Rounding moves only the last decimals of a loss (the lesson says so of other versions and hardware); it "
    "cannot hold a loss at 0.06. What remains comes from the data, not from the arithmetic.",
    "Read the lesson's explanation of the printout, the third point under \"Reading the output\".",
    READING,
    concept="training_loop",
)

RATE_BLAMED = Mistake(
    "remaining loss blamed on the learning rate",
    "At lr 0.1 the descent settles: w and b stop changing from step 40 on, so it sits at the minimum of the loss, "
    "and no learning rate gets below the minimum.",
    "Read the lesson's explanation of the printout, the third point under \"Reading the output\".",
    READING,
    concept="training_loop",
)

FORM_LETTERS_REUSED = Mistake(
    "form A letters reused for form B",
    "Where answers(\"B\") is wrong, it gives the letters answers(\"A\") gives (rightly, for form A); but form B lists "
    "each question's options in another order, so the same letters point at other options.",
    "Answer form B from what its options say, in the \"Form B\" part of the docstring, not from form A's letters.",
    f'the "Form B" part of the docstring in {STUB}',
    concept="seeds_and_arguments",
)

ANSWERS_CHANGE_BETWEEN_CALLS = Mistake(
    "answers changed by an earlier call",
    "Your answers() gives one set of letters when it is first called and another once answers(\"B\") has run: "
    "a call changes something the next call returns (a dict kept between calls and updated in place for form B), "
    "so form A's letters turn into form B's. The checks ask the two forms in any order, as often as they like, and "
    "each call must give its own form's letters.",
    "Return a new dict from every call (a dict literal inside answers, or dict(...) of a kept one), and never "
    "update a dict that lives between calls.",
    f"the docstring of answers in {STUB}",
    concept="seeds_and_arguments",
)

FORMS_DISAGREE = Mistake(
    "form B disagrees with your form A",
    "For the questions named, your form A letter picks the right option, but your form B letter points at another "
    "one: your two forms disagree. Form B lists each question's options in another order, so the letter of the "
    "option you chose in form A has to be looked up again among form B's options.",
    "For each question, find the option you chose in form A among form B's options, in the \"Form B\" part of the "
    "docstring, and give the letter it has there.",
    f'the "Form B" part of the docstring in {STUB}',
    concept="seeds_and_arguments",
)

FORMS_SWAPPED = Mistake(
    "letters of the other form",
    "The letters you gave for one form are the right answers of the other form, every one of them: the options "
    "were chosen well, but the two forms got swapped, in the dict keyed by form or in answers()'s default (which "
    "the docstring makes \"A\").",
    "Give form A's letters for answers() and answers(\"A\"), form B's for answers(\"B\"): each form lists its "
    "options in its own order, in the docstring.",
    f'the "Form A" and "Form B" parts of the docstring in {STUB}',
    concept="seeds_and_arguments",
)
