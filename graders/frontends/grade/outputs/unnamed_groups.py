"""Mistakes the catalogue does not know yet, found across a class: the unnamed failures grouped by what they did.

Per exercise, every student who failed a check of it with no named mistake on any of its checks is
described (failures that are a function not written yet, a file missing or not importable, or a timeout
are told already and left out) by what the grader observed, read back from the stored
messages (graders/engine/feedback.py writes them in one shape):

    for each check of the exercise    failed or not; its failure's headline with the numbers taken out
                                      (so "raised TypeError: ..." and "differs in 49 of 50 places" part)
    where it shows both values        whether the shape and the dtype differ from the reference's, the
                                      share of values of the opposite sign, and the typical scale factor
                                      (the median of log10 |returned / expected|, clipped to ±3)

Every feature is scaled to [0, 1] across the students described (MinMaxScaler), and they are grouped by
scikit-learn's agglomerative clustering, average linkage, Euclidean distance, cut at DISTANCE: two answers
end in one group when they differ, on average, by less than about half of one observation (a check failed
or not, a sign flipped or not). Nothing is random: the students are taken in the order of their ids, and
two runs give the same groups. A group of at least GROUP_SIZE students is a mistake worth a name; smaller
ones stay "(not named)". Each group shows the checks its students fail together, its size and share of the
class, and a representative answer: the student nearest the group's centre (ties: the first id), with the
lines that differ from the reference.
"""

from __future__ import annotations

import difflib
import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graders.engine.results import CheckResult
    from graders.frontends.grade.store import StudentRecord

DISTANCE = 0.5
GROUP_SIZE = 3
CLIP = 3.0  # decades of scale factor: a value 1000 times too big is as wrong as one a million times
DIFF_LINES = 24  # of a representative's answer, shown in the report

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|\bnan\b|\binf\b")
_SHAPE = re.compile(r"shape \(([^)]*)\)")
_DTYPE = re.compile(r"\b(float16|bfloat16|float32|float64|int8|int16|int32|int64|uint8|bool|complex64|complex128)\b")
_VALUES = re.compile(r"\[([^\]]*)\]")


@dataclass
class Group:
    """Students of one exercise whose unnamed failures look alike."""

    exercise: str
    number: int  # 1, 2, ... within the exercise, largest group first
    students: list[str]
    checks: list[str]  # the checks every one of them failed
    representative: str
    differs: list[str] = field(default_factory=list)  # the representative's lines that differ from the reference

    @property
    def label(self) -> str:
        return f"(unnamed group {self.number})"

    def as_json(self, class_size: int) -> dict[str, Any]:
        return {"group": self.number, "label": self.label, "size": len(self.students),
                "share": round(len(self.students) / class_size, 4) if class_size else 0.0, "checks": self.checks,
                "students": self.students, "representative": self.representative, "differs": self.differs}


def unnamed_groups(records: list[StudentRecord], slugs: list[str], answers: dict[str, dict[str, str]],
                   references: dict[str, str]) -> dict[str, list[Group]]:
    """Each exercise's groups of unnamed failures (exercises with none are absent)."""
    found = {}
    for slug in slugs:
        described = _described(records, slug)
        if len(described) >= GROUP_SIZE:
            groups = _grouped(slug, described, answers, references.get(slug, ""))
            if groups:
                found[slug] = groups
    return found


def members(groups: dict[str, list[Group]]) -> dict[tuple[str, str], str]:
    """(student, exercise) -> the label of the group they are in, for mistakes.csv and the report's tables."""
    return {(student, slug): group.label for slug, listed in groups.items() for group in listed
            for student in group.students}


def _described(records: list[StudentRecord], slug: str) -> dict[str, list[CheckResult]]:
    """The students whose failures on `slug` no named mistake explains, with that exercise's checks."""
    found = {}
    for record in sorted(records, key=lambda r: r.student):
        result = record.exercise(slug)
        checks = result.checks if result else []
        # A function not written, a file missing or not importable, a timeout: told already, and no slip to name.
        failed = [c for c in checks if not c.passed and not c.not_implemented and not c.cause]
        if not failed or any(c.mistake for c in checks):
            continue
        found[record.student] = checks
    return found


def _features(checks: list[CheckResult]) -> dict[str, float]:
    """What was observed of one student's answer, as named numbers (absent: 0). The values it returned and was
    expected to return are read from the message's lines: they are no fields of the result."""
    features: dict[str, float] = {}
    for check in checks:
        if check.passed:
            continue
        name = check.id
        message = check.message
        features[f"{name}: failed"] = 1.0
        headline = message.split("\n", 1)[0]
        features[f"{name}: {_NUMBER.sub('#', headline)[:160]}"] = 1.0
        returned, expected = _line(message, "returned"), _line(message, "expected")
        if not (returned and expected):
            continue
        for pattern, what in ((_SHAPE, "shape"), (_DTYPE, "dtype")):
            got, want = pattern.search(returned), pattern.search(expected)
            if got and want and got.group(1) != want.group(1):
                features[f"{name}: {what} differs"] = 1.0
        pairs = [(g, w) for g, w in zip(_values(returned), _values(expected)) if abs(g) > 1e-12 and abs(w) > 1e-12]
        if pairs:
            features[f"{name}: sign flipped"] = sum((g > 0) != (w > 0) for g, w in pairs) / len(pairs)
            scale = statistics.median(math.log10(abs(g / w)) for g, w in pairs)
            features[f"{name}: scale"] = max(-CLIP, min(CLIP, scale)) / CLIP
    return features


def _line(message: str, label: str) -> str:
    found = re.search(rf"^\s*{label}:\s*(.*)$", message, re.MULTILINE)
    return found.group(1) if found else ""


def _values(text: str) -> list[float]:
    """The numbers a message shows of a value: the listed elements of a tensor, or a lone number."""
    listed = _VALUES.search(text)
    source = listed.group(1) if listed else text
    values = []
    for token in _NUMBER.findall(source):
        try:
            value = float(token)
        except ValueError:
            continue
        if math.isfinite(value):
            values.append(value)
    return values if listed else values[:1]


def _grouped(slug: str, described: dict[str, list[CheckResult]], answers: dict[str, dict[str, str]],
             reference: str) -> list[Group]:
    import numpy as np
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.preprocessing import MinMaxScaler

    students = list(described)
    observed = [_features(described[s]) for s in students]
    names = sorted({name for features in observed for name in features})
    matrix = MinMaxScaler().fit_transform(np.array([[f.get(n, 0.0) for n in names] for f in observed]))
    labels = AgglomerativeClustering(n_clusters=None, distance_threshold=DISTANCE, linkage="average",
                                     metric="euclidean").fit_predict(matrix)
    clusters = [[i for i in range(len(students)) if labels[i] == label] for label in sorted(set(labels))]
    clusters = sorted((c for c in clusters if len(c) >= GROUP_SIZE), key=lambda c: (-len(c), students[c[0]]))
    groups = []
    for number, cluster in enumerate(clusters, start=1):
        centre = matrix[cluster].mean(axis=0)
        nearest = min(cluster, key=lambda i: (float(np.linalg.norm(matrix[i] - centre)), students[i]))
        together = [c.id for c in described[students[cluster[0]]]
                    if all(not _passed(described[students[i]], c.id) for i in cluster)]
        representative = students[nearest]
        groups.append(Group(slug, number, [students[i] for i in cluster], together, representative,
                            _differs(answers.get(representative, {}).get(slug, ""), reference)))
    return groups


def _passed(checks: list[CheckResult], check: str) -> bool:
    return any(c.id == check and c.passed for c in checks)


def _differs(answer: str, reference: str) -> list[str]:
    """The answer's lines that are not the reference's, and the reference's it lacks, as a diff shows them."""
    lines = [line for line in difflib.unified_diff(reference.splitlines(), answer.splitlines(), lineterm="", n=0)
             if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return lines[:DIFF_LINES] + ([f"... and {len(lines) - DIFF_LINES} more lines"] if len(lines) > DIFF_LINES else [])


def references(root: Path, lesson: str, slugs: list[str]) -> dict[str, str]:
    """The reference answers the representatives are compared with (absent ones: empty)."""
    found = {}
    for slug in slugs:
        path = root / "reference" / lesson / f"{slug}.py"
        found[slug] = path.read_text(encoding="utf-8") if path.is_file() else ""
    return found
