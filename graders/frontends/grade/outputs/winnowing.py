"""Fingerprints of normalized code and how much two of them share, as MOSS's winnowing measures it.

Every k-gram (k characters in a row) of the normalized code is a fingerprint: a winnowing window of 1,
so the guarantee threshold is k itself (similarity.py says why the window is 1). A fingerprint keeps,
for each k-gram's hash, the places it starts at; k-grams can be dropped from it (the stub's, the
class's common code) before it is compared. Two fingerprints share the characters covered by their
common k-grams, merged into slices; each one's share is what it shares over the characters its own
k-grams cover. These are the measures copydetect (the package, 0.5) computes, owned here so that dropping
k-grams needs none of its internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def kgram_hashes(text: str, k: int) -> list[int]:
    """The hash of each k-gram of `text`, by its start (Python's str hash: equal within one process)."""
    return [hash(text[start:start + k]) for start in range(len(text) - k + 1)]


@dataclass
class Fingerprint:
    """One answer's normalized code, as the places of its k-grams."""

    k: int
    length: int  # characters of normalized code
    places: dict[int, list[int]] = field(default_factory=dict)  # k-gram hash -> where it starts, in order
    _covered: int | None = field(default=None, repr=False)

    @classmethod
    def of(cls, text: str, k: int) -> "Fingerprint":
        places: dict[int, list[int]] = {}
        for start, kgram in enumerate(kgram_hashes(text, k)):
            places.setdefault(kgram, []).append(start)
        return cls(k, len(text), places)

    @property
    def hashes(self) -> set[int]:
        return set(self.places)

    def drop(self, hashes: set[int]) -> None:
        """Forget these k-grams (the stub's, the class's common code)."""
        if not hashes.isdisjoint(self.places):
            self.places = {kgram: where for kgram, where in self.places.items() if kgram not in hashes}
            self._covered = None

    @property
    def covered(self) -> int:
        """Characters of the code that some k-gram still held covers: a share is of this."""
        if self._covered is None:
            starts = sorted(start for where in self.places.values() for start in where)
            self._covered = sum(end - start for start, end in _merged(starts, self.k))
        return self._covered


@dataclass(frozen=True)
class Overlap:
    """What two fingerprints share: each one's share of its own code, and its shared slices (start, end)."""

    shares: tuple[float, float]
    first: list[tuple[int, int]]
    second: list[tuple[int, int]]


def overlap(first: Fingerprint, second: Fingerprint) -> Overlap:
    """The k-grams two fingerprints share, as slices of each one's code and as shares of what each covers."""
    if first.k != second.k:
        raise ValueError(f"fingerprints of k = {first.k} and k = {second.k} cannot be compared")
    common = first.places.keys() & second.places.keys()
    slices = [_merged(sorted(start for kgram in common for start in fingerprint.places[kgram]), fingerprint.k)
              for fingerprint in (first, second)]
    if not slices[0]:
        return Overlap((0.0, 0.0), [], [])
    shares = tuple(sum(end - start for start, end in found) / fingerprint.covered if fingerprint.length else 0.0
                   for found, fingerprint in zip(slices, (first, second)))
    return Overlap((shares[0], shares[1]), slices[0], slices[1])


def _merged(starts: list[int], k: int) -> list[tuple[int, int]]:
    """Sorted k-gram starts as the slices of characters they cover, k-grams that overlap joined into one slice (as
    copydetect's are: a start fewer than k characters after the one before it continues its slice)."""
    slices: list[tuple[int, int]] = []
    for start in starts:
        if slices and start < slices[-1][1]:
            slices[-1] = (slices[-1][0], start + k)
        else:
            slices.append((start, start + k))
    return slices
