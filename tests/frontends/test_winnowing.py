"""Fingerprints and their overlap (graders/frontends/grade/outputs/winnowing.py), on texts small enough to count
by hand."""

from __future__ import annotations

import pytest

from graders.frontends.grade.outputs.winnowing import Fingerprint, overlap


def test_a_text_shares_all_of_itself_and_its_one_slice_covers_it() -> None:
    text = "def f(V):return V*2;"
    shared = overlap(Fingerprint.of(text, 5), Fingerprint.of(text, 5))
    assert shared.shares == (1.0, 1.0)
    assert shared.first == shared.second == [(0, len(text))]


def test_a_shared_run_is_one_slice_and_a_share_is_of_each_texts_own_code() -> None:
    first, second = Fingerprint.of("abcdefgh", 3), Fingerprint.of("xxabcdexx", 3)
    shared = overlap(first, second)
    # abc, bcd and cde are common: characters 0-5 of the first (of 8), 2-7 of the second (of 9).
    assert shared.first == [(0, 5)] and shared.second == [(2, 7)]
    assert shared.shares == (5 / 8, 5 / 9)


def test_runs_apart_stay_apart_even_when_they_touch() -> None:
    shared = overlap(Fingerprint.of("abcxyz", 3), Fingerprint.of("abc-xyz", 3))
    assert shared.first == [(0, 3), (3, 6)] and shared.second == [(0, 3), (4, 7)]


def test_dropped_kgrams_neither_match_nor_count_in_the_share() -> None:
    first, second = Fingerprint.of("abcdefgh", 3), Fingerprint.of("abcdefgh", 3)
    given = Fingerprint.of("abcde", 3).hashes  # abc, bcd, cde: what everyone was handed
    first.drop(given)
    second.drop(given)
    shared = overlap(first, second)
    assert first.covered == 5  # characters 3-7: def, efg, fgh
    assert shared.first == [(3, 8)] and shared.shares == (1.0, 1.0)


def test_nothing_shared_is_a_share_of_zero_and_no_slice() -> None:
    assert overlap(Fingerprint.of("aaaa", 2), Fingerprint.of("bbbb", 2)).shares == (0.0, 0.0)


def test_fingerprints_of_two_lengths_of_kgram_are_not_compared() -> None:
    with pytest.raises(ValueError, match="k = 2 and k = 3"):
        overlap(Fingerprint.of("abcd", 2), Fingerprint.of("abcd", 3))
