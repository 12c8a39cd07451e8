"""Landlock (graders/sandbox/landlock.py): with no namespace view, Landlock alone keeps the reference and
folders outside the worker's reach unread and unwritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from attacks import ONLY_F, SLUG, assert_earns_only_the_honest_part, attack
from graders.sandbox import landlock


@pytest.mark.skipif(landlock.abi_version() < 1, reason="this kernel has no Landlock")
def test_landlock_alone_keeps_the_reference_and_other_folders_out_of_reach(grade, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("original\n")
    code = f"""
from pathlib import Path
import graders
try:
    found = (Path(graders.__file__).parent.parent / 'reference' / 'lesson01' / 'sin_exp_derivative.py').read_text()
except OSError:
    pass
try:
    open({str(victim)!r}, 'w').write('poisoned')
    found = 'wrote the victim'
except OSError:
    pass
"""
    graded = grade({SLUG: attack(code)}, *ONLY_F, "--sandbox-without", "namespace")
    assert_earns_only_the_honest_part(graded)
    assert victim.read_text() == "original\n"
