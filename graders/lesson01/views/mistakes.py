"""The named mistakes of `views`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import Mistake, code_shows


VIEWS = '"Reshape vs. View vs. Contiguous" in the companion text'

RESHAPING = '"Operations, broadcasting and reshaping", where view(-1) flattens'

# The idea of the lesson that most of these mistakes break (a key of course_config.CONCEPTS);
# the others name their own.
CONCEPT = "views"

# Code that already compares the storages: a name whose hint asks for that comparison would ask for what it does.
COMPARES_STORAGES = code_shows("shares_memory", ("untyped_storage", "storage", "_typed_storage"),
                               "shares_memory compares the tensors' storages")

VIEW_ON_TRANSPOSED = Mistake(
    ".view on a transposed tensor",
    "view() only puts a new shape on the memory a tensor already has, so the elements must already lie "
    "in memory in the order the new shape reads them. A transposed (non-contiguous) tensor walks its "
    "memory column by column, so PyTorch refuses with \"view size is not compatible with input "
    "tensor's size and stride ... Use .reshape(...) instead.\"",
    "Use x.reshape(-1): it returns a view when one is possible and a copy when it is not.",
    VIEWS,
    error_pattern=r"view size is not compatible with input tensor's size and stride",
    concept=CONCEPT,
)

ALWAYS_COPYING = Mistake(
    "always copying",
    "Your result holds the right numbers, but in new memory: the input was contiguous, so a view of it "
    "would have done, with no copy at all. A view shares the input's storage: it is free to make, and "
    "it sees every change made to the input.",
    "Return x.view(...) or x.reshape(...) as it is, without .clone(), torch.tensor(...) or .tolist() "
    "on the way.",
    VIEWS,
    concept=CONCEPT,
)

COPIED_A_STRIDED_VIEW = Mistake(
    "copied where a view was possible",
    "Your result holds the right numbers, but in new memory. The input is not contiguous, yet its elements sit "
    "at equal steps in memory (every other one), so a view with a step of its own lists them in row-major order "
    "without a copy: x.reshape(-1) finds it. x.contiguous() (or .clone(), .flatten() after it) copies first.",
    "Return x.reshape(-1): it gives a view whenever the steps allow one, and copies only when they do not.",
    VIEWS,
    concept=CONCEPT,
)

READ_FROM_THE_STORAGE_START = Mistake(
    "a view made from the storage's first element",
    "Your result has the right shape and steps, but its elements start at the very beginning of the input's storage. "
    "The input starts further in (a slice such as x[1:] or x[2:] keeps its parent's storage and an offset into it), "
    "and a view made by hand with torch.as_strided(x, size, stride, 0) throws that offset away, so it lists "
    "elements that lie before the input.",
    "Pass the input's own offset, torch.as_strided(x, size, stride, x.storage_offset()), or leave it out (None keeps "
    "the input's); simpler, x.reshape(-1) or x.view(...) make the view with the offset right.",
    VIEWS,
    concept=CONCEPT,
)

ROWS_AND_COLUMNS_SWAPPED = Mistake(
    "rows and columns swapped",
    "Your grid has `rows` columns rather than `rows` rows: in view(-1, rows) the -1 stands for the "
    "number of rows, and `rows` becomes the length of each row.",
    "Put the number of rows first: x.view(rows, -1).",
    VIEWS,
    concept=CONCEPT,
)

DATA_PTR_COMPARED = Mistake(
    "compared data_ptr instead of storage",
    "Your function says that a tensor and a slice of it such as x[3:] do not share memory. They do: "
    "the slice is a view into the same storage that starts a few elements later. a.data_ptr() is the "
    "address of a tensor's first element, so it differs between them although the storage is the same.",
    "Compare the storages: a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr().",
    VIEWS,
    concept=CONCEPT,
    # Code that already compares the storages gives data_ptr's answers for another reason (a test added beside it):
    # the name and its hint would ask for what it does.
    contradicted_by=(COMPARES_STORAGES,
                     code_shows("shares_memory", ("storage_offset",),
                                "shares_memory takes each tensor's offset back off its data_ptr")),
)

OFFSET_IN_ELEMENTS = Mistake(
    "an offset in elements taken from an address in bytes",
    "Your function finds where each tensor's storage starts as a.data_ptr() − a.storage_offset(). But data_ptr() is "
    "an address in bytes, and storage_offset() counts elements: x[3:] of an int64 tensor starts 3 elements, 24 bytes, "
    "after x, so subtracting 3 lands 21 bytes off, and a tensor and its slice seem to start in different places.",
    "Multiply the offset by the size of an element: a.data_ptr() − a.storage_offset() * a.element_size(); or compare "
    "the storages directly, a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr().",
    VIEWS,
    concept=CONCEPT,
    # Code that already scales the offset has another slip: the name would ask for what it does.
    contradicted_by=(code_shows("shares_memory", ("element_size", "itemsize", "nbytes"),
                                "shares_memory scales the offset by the element's size"),
                     COMPARES_STORAGES),
)

FLAT_COLUMN = Mistake(
    "a column instead of a flat tensor",
    "Your result has the right numbers in the right order, but in a 2-D column of shape (numel, 1): "
    "reshape(-1, 1) (or view(-1, 1)) asks for one column with as many rows as needed. Flattening means one dimension only, "
    "so the shape should be (numel,).",
    "Pass -1 alone: x.reshape(-1), not x.reshape(-1, 1).",
    RESHAPING,
    concept=CONCEPT,
)

INPUT_HANDED_BACK = Mistake(
    "x handed back unchanged",
    "For this x your flatten returns x itself, shape and all, where a 1-D tensor of x.numel() elements belongs. An "
    "early return of x (for a 0-d or a 1-D x, say) is right for a 1-D x only: a 0-d x has no dimension at all, "
    "and its flat form is a 1-D tensor of its one element, shape (1,).",
    "Drop the early return: x.reshape(-1) handles every number of dimensions, 0-d included, and still returns a "
    "view of x's storage wherever one can list the elements.",
    RESHAPING,
    concept=CONCEPT,
)

SPANS_COMPARED = Mistake(
    "memory spans compared, not storages",
    "Your function answers whether the bytes the two tensors cover overlap. But two views of one storage may cover "
    "parts of it that do not overlap at all: x[:r] and x[r:] lie side by side in one block of memory, and still "
    "share it in the sense torch means, one storage that both read and write. Sharing is about the storage, not "
    "about which of its elements each view shows.",
    "Compare the storages themselves: a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr().",
    VIEWS,
    concept=CONCEPT,
)

BASE_COMPARED = Mistake(
    "compared ._base instead of storage",
    "Your function says that two tensors share memory only when one is the other's ._base. But ._base names the "
    "tensor a view was first cut from, never a view in between: g.T where g = x.view(...) records x, not g, and "
    "two views of one tensor (x[::2] and x[1::2]) are neither the other's base, although they share a storage.",
    "Compare the storages: a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr().",
    VIEWS,
    concept=CONCEPT,
)

BASE_FOLLOWED = Mistake(
    "._base followed instead of comparing storages",
    "Your function decides sharing through ._base, the tensor a view was cut from. That link is autograd's record of "
    "view operations only: x.detach() shares x's storage with no ._base pointing back, as do two tensors made from "
    "one NumPy array, so following ._base, however far up, misses memory that is shared all the same.",
    "Compare the storages themselves, which every sharing tensor has in common: a.untyped_storage().data_ptr() == "
    "b.untyped_storage().data_ptr().",
    VIEWS,
    concept=CONCEPT,
    contradicted_by=(COMPARES_STORAGES,),
)
