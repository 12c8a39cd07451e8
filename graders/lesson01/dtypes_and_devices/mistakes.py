"""The named mistakes of `dtypes_and_devices`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import Mistake, code_shows


TENSORS = '"Tensors", the three attributes every tensor has (dtype and device)'

PITFALLS = '"Common pitfalls", "Mixing dtypes"'

DEVICES = '"Devices: CPU, CUDA, MPS" in the companion text'

# The idea of the lesson that most of these mistakes break (a key of course_config.CONCEPTS);
# the others name their own.
CONCEPT = "devices"

FLOAT64_KEPT = Mistake(
    "float64 kept from the NumPy array",
    "Your features are float64. Converting an array keeps its dtype (torch.from_numpy and torch.tensor "
    "alike), and NumPy makes float64 unless told otherwise. A float64 batch meeting a model's float32 weights "
    "stops the forward pass with RuntimeError: mat1 and mat2 must have the same dtype.",
    "Cast after converting: torch.from_numpy(a).float().",
    PITFALLS,
    concept="dtypes",
    # Code that asks for float64 itself (dtype=torch.float64, .double()) did not keep it from the array: the result's
    # dtype is then told as the fact it is.
    contradicted_by=(code_shows("to_features", ("float64", "double"), "to_features asks for float64 itself"),),
)

FLOAT_LABELS = Mistake(
    "float labels",
    "Your labels are floating-point numbers. Labels name classes by index, and PyTorch keeps class "
    "labels as int64 (torch.long); only features and weights are float32.",
    "Convert labels with .long(): torch.from_numpy(a).long().",
    PITFALLS,
    concept="dtypes",
)

INT32_LABELS = Mistake(
    "int32 labels",
    "Your labels hold the right class indices but are int32: .int() casts to int32 (and an int32 array stays "
    "int32 when converted). PyTorch keeps class labels as int64 (torch.long), and a loss such as "
    "nn.CrossEntropyLoss stops on int32 labels with a RuntimeError that asks for Long.",
    "Cast with .long(), not .int(): torch.from_numpy(a).long().",
    TENSORS,
    concept="dtypes",
)

WRONG_BACKEND_ORDER = Mistake(
    "wrong order of backends",
    "With both CUDA and MPS available your function chose mps: it asks about MPS before CUDA. The "
    "order of the questions is the order of preference, and CUDA comes first.",
    "Ask torch.cuda.is_available() first, then torch.backends.mps.is_available(), then fall back to cpu.",
    DEVICES,
    concept=CONCEPT,
)

DEVICE_NAME = Mistake(
    "returned the device's name, not a torch.device",
    "Your function returns a string such as 'cuda', as the lesson's one-liner does. .to(device) accepts the "
    "name too, but a string is not a torch.device: it has no .type or .index, and pick_device promises a "
    "torch.device.",
    'Wrap the name before returning it: torch.device("cuda"), torch.device("mps") or torch.device("cpu").',
    DEVICES,
    concept=CONCEPT,
)

MOVED_NON_TENSOR = Mistake(
    "moved a value that is not a tensor",
    "Your function calls .to(device) on every value of the batch, but a batch may also hold values "
    "that are not tensors (a list of names, a number, None), and those have no .to method.",
    "Move only the tensors: value.to(device) if isinstance(value, torch.Tensor) else value.",
    DEVICES,
    error_pattern=r"^AttributeError: '\w+' object has no attribute 'to'",
    concept=CONCEPT,
)

CONTAINERS_ENTERED = Mistake(
    "tensors inside other values moved too",
    "Your function also goes into the values that are not tensors (a list, a tuple, a dict) and moves the tensors it "
    "finds inside them, handing back a new container. The docstring asks for those values to be kept as they are: "
    "the caller's list is the caller's, and what it holds stays where the caller put it.",
    "Move only the values that are tensors themselves: value.to(device) if isinstance(value, torch.Tensor) else "
    "value, with no recursion into lists, tuples or dicts.",
    DEVICES,
    concept=CONCEPT,
)

CHANGED_BATCH = Mistake(
    "changed the caller's batch",
    "Your function writes the moved tensors into the batch it was given (batch[key] = value.to(device)) "
    "instead of into a new dict. So the caller's batch changes too, and code that still uses it (a copy kept "
    "on the CPU for logging, a dataset that hands out the same dict each epoch) finds its tensors moved.",
    "Leave batch as it is and build a new dict: return {key: ... for key, value in batch.items()}.",
    DEVICES,
    concept=CONCEPT,
)

INTEGER_FEATURES = Mistake(
    "integer array left integer",
    "Your features have the right values but an integer dtype: you cast only float64 arrays, and an array "
    "of whole numbers converts to an integer tensor, since conversion keeps the array's dtype. A model's "
    "float32 weights cannot be multiplied with it.",
    "Cast every array, whatever its dtype: torch.from_numpy(a).float().",
    PITFALLS,
    concept="dtypes",
)

NON_TENSORS_DROPPED = Mistake(
    "values that are not tensors dropped",
    "Your dict holds only the tensors of the batch: the keys whose values are not tensors (a list of names, "
    "a number, None) are missing. A comprehension with `if isinstance(value, torch.Tensor)` at its end leaves "
    "those entries out instead of keeping them.",
    "Keep every key and choose the value per entry: {key: value.to(device) if isinstance(value, torch.Tensor) "
    "else value for key, value in batch.items()}.",
    DEVICES,
    concept=CONCEPT,
)

DEVICE_AT_IMPORT = Mistake(
    "device chosen at import",
    "Your pick_device gave the same device whatever torch reported when it was called, but a fresh import of "
    "your file while torch reported other backends changed that answer. The device is decided once, by top-level "
    "code that runs when the module is imported, so pick_device describes the machine as it was then, not as it "
    "is when called.",
    "Move the questions into the function's body, so that torch is asked on every call: "
    'if torch.cuda.is_available(): return torch.device("cuda"), and so on.',
    DEVICES,
    concept=CONCEPT,
)

DTYPE_FROM_A_LIST = Mistake(
    "dtype left to a Python list",
    "Your tensor was built from a Python list (a.tolist()), and a list keeps no dtype: torch.tensor gives Python "
    "floats float32 and whole numbers int64, whatever the array held. So the dtype you return is the list's "
    "default (int64 features from whole numbers, float32 labels from a text file's floats), not the one the "
    "docstring asks for.",
    "Say the dtype instead of leaving it to the list: torch.from_numpy(a).float() for features, "
    "torch.from_numpy(a).long() for labels (or dtype=... in torch.tensor).",
    PITFALLS,
    concept="dtypes",
)

SHAPE_FROM_A_LIST = Mistake(
    "shape lost in a Python list",
    "Your tensor was rebuilt from a Python list (a.tolist()), and an empty array lists as [] whatever its shape: "
    "a 0×3 array becomes [], which torch makes a tensor of shape (0,). The list holds the values only, and an "
    "array with no values leaves it nothing to carry its shape.",
    "Convert the array itself, which keeps its shape: torch.from_numpy(a).float() (or torch.tensor(a, dtype=...)), "
    "not its .tolist().",
    PITFALLS,
    concept="dtypes",
)

BUILT_NOT_AVAILABLE = Mistake(
    "backend built, not available",
    "Your pick_device chose a GPU backend that torch was built with but that is not available on this machine: "
    "torch.backends.mps.is_built() (or torch.backends.cuda.is_built()) says whether this copy of PyTorch includes "
    "that backend, not whether the machine can run it. A Mac without a usable GPU, or a CUDA build on a machine "
    "with no NVIDIA GPU, has the backend built and unavailable, and a tensor sent there fails.",
    "Ask whether it is available: torch.cuda.is_available() and torch.backends.mps.is_available().",
    DEVICES,
    concept=CONCEPT,
)
