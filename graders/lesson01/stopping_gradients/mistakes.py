"""The named mistakes of `stopping_gradients`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import Mistake, code_shows


TRIANGLE = '"The Detach / no_grad / .data Triangle" in the companion text'

WORKED = '"Worked example", where it explains torch.no_grad()'

ZEROING = '"Worked example", where it explains w.grad.zero_()'

PITFALLS = '"Common pitfalls"'

DEVICES = '"Devices: CPU, CUDA, MPS" in the companion text'

LINEAR = '"The same model, the PyTorch way", where nn.Linear holds the weight and prints its shape'

# The idea of the lesson that most of these mistakes break (a key of course_config.CONCEPTS);
# the others name their own.
CONCEPT = "detach_and_no_grad"

DATA_USED = Mistake(
    "used .data",
    ".data hands you the tensor's storage behind autograd's back: changes made through it are invisible "
    "to autograd, so a gradient computed from the old values can silently come out wrong.",
    "Update inside `with torch.no_grad():` (p -= lr * p.grad); to read values without a graph, use .detach().",
    TRIANGLE,
    concept=CONCEPT,
)

PART_OUTSIDE_NO_GRAD = Mistake(
    "part of predict outside no_grad",
    "predict has a `with torch.no_grad():` block, but part of its computation runs outside it, where autograd "
    "records: an operation before the block, or after it on the block's result (such as `+ bias` written after "
    "the `with`), is logged in a graph with the parameters that require grad, and the result carries a grad_fn.",
    "Move the whole computation, X @ weight.T + bias, inside the `with torch.no_grad():` block, and return its "
    "result.",
    TRIANGLE,
    concept=CONCEPT,
)

NO_GRAD_MISSING_IN_PREDICT = Mistake(
    "no no_grad in predict",
    "predict computes with autograd recording: the parameters require grad, so every operation is logged "
    "in a graph that no backward() will use (and the result carries a grad_fn unless it is detached "
    "afterwards). Inference should record nothing.",
    "Put the computation inside `with torch.no_grad():` and return its result.",
    TRIANGLE,
    concept=CONCEPT,
    contradicted_by=(code_shows("predict", ("no_grad", "inference_mode", "set_grad_enabled"),
                                "predict has a block that turns autograd's recording off"),),
)

REBOUND = Mistake(
    "rebound instead of updating in place",
    "The parameters you were given still hold their old values. `p = p - lr * p.grad` makes a new tensor "
    "and points the loop variable at it; the tensor in the list (the model's parameter) never changes (and the new "
    "one has no .grad to clear).",
    "Change the tensor itself with an in-place operation: p -= lr * p.grad (inside torch.no_grad()).",
    WORKED,
    # The new tensor a rebinding makes has no gradient, so clearing it next raises.
    error_pattern=r"AttributeError: 'NoneType' object has no attribute 'zero_'",
    concept="training_loop",
    contradicted_by=(lambda student: "sgd_step changes its tensors in place"
                     if student.evidence.updates_in_place("sgd_step") else "",),
)

NOT_REACHED = Mistake(
    "some parameters never reached by the update",
    "Some of the parameters you were given still hold their old values while others changed: your sgd_step "
    "updates in place, but not every tensor in the list gets its update (a return or break inside the loop ends "
    "it early, or the loop runs over part of the list).",
    "Update every tensor of params: for p in params: p -= lr * p.grad (inside torch.no_grad()), with nothing in "
    "the loop that ends it before the last one.",
    WORKED,
    concept="training_loop",
)

ZEROED_BEFORE_UPDATE = Mistake(
    "grads zeroed before the update",
    "Your sgd_step cleared p.grad before using it: the update did change p in place, but by lr times a gradient "
    "that was already zero, so every parameter came back with its old value. The training loop zeroes first "
    "because its backward() comes after; inside the step the gradient is already there and must be used first.",
    "Swap the two lines: first p -= lr * p.grad, then p.grad.zero_().",
    ZEROING,
    concept="accumulation",
)

GRADS_NOT_ZEROED = Mistake(
    "grads not zeroed",
    "After the step the parameters' .grad still hold this step's gradient. backward() adds into .grad, so "
    "the next step would use the sum of the old and the new gradient.",
    "After updating p, clear its gradient: p.grad.zero_().",
    ZEROING,
    concept="accumulation",
)

UPDATE_OUTSIDE_NO_GRAD = Mistake(
    "in-place update outside no_grad",
    "PyTorch refuses to change a leaf that requires grad in place while autograd is recording: the update "
    "would become part of the graph.",
    "Wrap the update in `with torch.no_grad():`.",
    WORKED,
    error_pattern=r"a leaf Variable that requires grad is being used in an in-place operation",
    concept=CONCEPT,
)

NUMPY_ON_TRACKED = Mistake(
    ".numpy() on a tracked tensor",
    "PyTorch says \"Can't call numpy() on Tensor that requires grad\": a NumPy array cannot hold the "
    "autograd graph, so a tensor that requires grad must be cut from the graph first.",
    "Return t.detach().cpu().numpy().",
    PITFALLS,
    error_pattern=r"Can't call numpy\(\) on Tensor that requires grad",
    concept=CONCEPT,
)

REQUIRES_GRAD_TURNED_OFF = Mistake(
    "requires_grad turned off on the caller's tensor",
    "t.requires_grad_(False) (like t.detach_()) changes the very tensor you were given, not a copy: after "
    "to_numpy the caller's tensor no longer requires grad, so autograd stops tracking it. Had the caller passed "
    "a weight, its training would get no more gradients for it.",
    "Leave t as it is and cut a new tensor from the graph instead: return t.detach().cpu().numpy().",
    TRIANGLE,
    concept=CONCEPT,
)

FLOAT32_TO_FLOAT64 = Mistake(
    "float32 turned into float64",
    "Your array holds the right numbers but as float64, while the tensor was float32: a step on the way made "
    "float64 (Python floats from t.tolist() put into np.array, a cast such as .astype(float), dtype=float), so the "
    "tensor's own dtype is lost (and the array takes twice the memory).",
    "Convert the tensor directly and keep its dtype, with no cast after it: return t.detach().cpu().numpy().",
    '"Tensors", the NumPy round trip',
    concept="dtypes",
)

WEIGHT_NOT_TRANSPOSED = Mistake(
    "weight not transposed in predict",
    "Your predict multiplies X by weight as it is, X @ weight. A linear layer stores its weight as "
    "(out_features, in_features), so X, of shape (n, in_features), must meet weight.T, of shape (in_features, "
    "out_features). Without .T the shapes fit only when weight is square, like the lesson's (1, 1); for any "
    "other weight torch refuses to multiply them (and a square weight that is not symmetric gives wrong values).",
    "Transpose the weight: X @ weight.T + bias.",
    LINEAR,
    concept="broadcasting",
)

NOT_COPIED_TO_THE_CPU = Mistake(
    "GPU tensor given to NumPy without .cpu()",
    "NumPy reads only the CPU's memory, so .numpy() (or np.array) on a tensor that lives on a GPU raises "
    "TypeError: can't convert cuda:0 device type tensor to numpy. Your to_numpy works for CPU tensors only, "
    "while its docstring promises GPU tensors too.",
    "Copy to the CPU on the way out: t.detach().cpu().numpy(). For a tensor already on the CPU, .cpu() returns "
    "the tensor itself, at no cost.",
    DEVICES,
    error_pattern=r"TypeError: can't convert cuda",
    concept="devices",
)
