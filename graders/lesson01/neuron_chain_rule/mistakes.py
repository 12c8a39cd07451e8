"""The named mistakes of `neuron_chain_rule`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import Mistake


AUTOGRAD = '"Autograd: gradients for free", the single artificial neuron'

CHAIN_RULE = '"Autograd: gradients for free", the chain rule worked out below the neuron'

# The idea of the lesson that most of these mistakes break (a key of course_config.CONCEPTS);
# the others name their own.
CONCEPT = "chain_rule"

FORGOT_ONE_MINUS_SIGMA = Mistake(
    "forgot the (1 − σ) factor",
    "Your gradient equals σ(z)·inp. The derivative of the sigmoid is σ(z)·(1 − σ(z)), not σ(z) itself; "
    "near z = 3, where σ is close to 1, leaving out (1 − σ) makes the gradient about 20 times too large.",
    "Multiply by (1 − σ(z)) as well: σ(z) * (1 - σ(z)) * inp.",
    CHAIN_RULE,
    concept=CONCEPT,
)

NO_INP = Mistake(
    "σ′(z) without inp",
    "Your gradient is σ′(z) = σ(z)·(1 − σ(z)) alone, the same number for every weight. That is d out / d z; "
    "the chain rule still needs d z / d w, which for z = w · inp is inp.",
    "Multiply σ′(z) by inp, so that each weight's gradient is scaled by its own input.",
    CHAIN_RULE,
    concept=CONCEPT,
)

W_FOR_INP = Mistake(
    "w in place of inp",
    "Your gradient equals σ′(z)·w. The derivative of z = w · inp with respect to w is inp, the thing w is "
    "multiplied by, not w itself.",
    "Use inp as the last factor: σ(z) * (1 - σ(z)) * inp.",
    CHAIN_RULE,
    concept=CONCEPT,
)

SIGN_FLIPPED = Mistake(
    "sign of (1 − σ) flipped",
    "Your gradient is minus the right one: σ(z)·(σ(z) − 1)·inp. The sigmoid is increasing, so raising a "
    "weight whose input is positive must raise the output.",
    "Write the factor as (1 - σ(z)), not (σ(z) - 1).",
    CHAIN_RULE,
    concept=CONCEPT,
)

Z_FOR_SIGMA = Mistake(
    "σ′(z) taken as z(1 − z)",
    "Your gradient equals z·(1 − z)·inp: the formula s·(1 − s) was applied to z = w · inp itself. In "
    "σ′(z) = σ(z)·(1 − σ(z)), s stands for the sigmoid's output σ(z), not for its input z; for the lesson's "
    "z = 3 that gives 3·(1 − 3) = −6 where σ′(3) is 0.045.",
    "Pass z through the sigmoid first, s = torch.sigmoid(z), then return s * (1 - s) * inp.",
    CHAIN_RULE,
    concept=CONCEPT,
)

NO_SUM = Mistake(
    "forgot the sum in w · inp",
    "Your neuron returns σ(w * inp), one value per weight: the products were never added up. A neuron "
    "squashes a single number, the weighted sum z = w · inp.",
    "Sum the products before the sigmoid: torch.sigmoid((w * inp).sum()).",
    AUTOGRAD,
    concept=CONCEPT,
)

SIGMOID_SIGN_FLIPPED = Mistake(
    "sigmoid's sign flipped",
    "Your neuron returns σ(−z) = 1 − σ(z), which is what 1 / (1 + exp(z)) gives: the minus sign of exp(−z) "
    "went missing. For the lesson's z = 3 that gives 0.0474 instead of 0.9526, and the output falls where it "
    "should rise.",
    "Write the sigmoid as 1 / (1 + torch.exp(-z)), or simply call torch.sigmoid(z).",
    AUTOGRAD,
    concept=CONCEPT,
)

SIGMOID_BEFORE_SUM = Mistake(
    "sigmoid taken before the sum",
    "Your neuron returns σ(w₁·inp₁) + σ(w₂·inp₂) + ...: the sigmoid squashed each product on its own and the "
    "squashed values were added. A neuron adds the products first and squashes that one number, z = w · inp; "
    "a sum of n sigmoids can reach n, where σ(z) stays below 1 (the lesson's case gives 1.953, not 0.9526).",
    "Swap the order: torch.sigmoid((w * inp).sum()).",
    AUTOGRAD,
    concept=CONCEPT,
)

SLOPE_WRITTEN_IN = Mistake(
    "σ′(z) copied from the lesson's case",
    "Your gradient is a fixed number, the lesson's σ′(3) ≈ 0.0452, times inp, whatever w is: the slope was copied "
    "from the lesson's case instead of computed. σ′(3) belongs to that case's z = w · inp = 3 (and rounded, it "
    "misses even there); another w gives another z and another slope, 0.25 at z = 0.",
    "Compute the slope from the arguments: s = torch.sigmoid((w.detach() * inp).sum()), then s * (1 - s) * inp.",
    CHAIN_RULE,
    concept=CONCEPT,
)

GRAPH_CUT = Mistake(
    "graph cut in neuron",
    "Your neuron returns the right number, but backward() cannot reach w through it: the value left the "
    "autograd graph (.item(), float(), math.exp, torch.tensor(...) or .detach() on the way).",
    "Use torch operations on w itself, e.g. torch.sigmoid((w * inp).sum()), and keep the result a tensor.",
    AUTOGRAD,
    concept="requires_grad",
)

RESULT_TRACKS_W = Mistake(
    "hand gradient still tracks w",
    "Given a w that requires grad (as every weight being trained does), your gradient came back requiring grad "
    "too: it was computed from w itself, so autograd recorded the arithmetic and the result carries a graph back "
    "to w. A gradient worked out by hand is a plain number, not part of the model.",
    "Compute it from w.detach() (or inside torch.no_grad()): s = torch.sigmoid((w.detach() * inp).sum()).",
    CHAIN_RULE,
    concept="detach_and_no_grad",
)

ONE_MINUS_SIGMA_ONLY = Mistake(
    "σ′(z) taken as 1 − σ(z)",
    "Your gradient equals (1 − σ(z))·inp: the slope you used is 1 − σ(z), one factor σ(z) short of "
    "σ′(z) = σ(z)·(1 − σ(z)). Written with exponentials this is exp(−z) / (1 + exp(−z)), the derivative with its "
    "denominator not squared; for the lesson's z = 3 it gives 0.0474 where σ′(3) is 0.0452.",
    "Square the denominator, exp(−z) / (1 + exp(−z))², or write it as s * (1 - s) * inp with s = torch.sigmoid(z).",
    CHAIN_RULE,
    concept=CONCEPT,
)
