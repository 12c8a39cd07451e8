"""The grading services a Dask worker keeps (graders/frontends/grade/run/dask_worker.py): a note about a stopped
service goes on a line of its own in its log. Grading through the workers (a separate scheduler, a worker killed,
a sandbox that cannot hold) is test_dask.py's, on a cluster of its own; their logs are test_batch_logs.py's."""

from __future__ import annotations

import types
from pathlib import Path

from graders.frontends.grade.run import dask_worker


def test_a_note_about_a_stopped_service_goes_on_a_line_of_its_own(tmp_path: Path) -> None:
    log = tmp_path / "service.log"
    log.write_text("graders: grading student 'ann' (lesson01: every exercise)\n.....")  # stopped mid-row
    service = types.SimpleNamespace(log=log)
    dask_worker._Service.note(service, "graders: student 'ann': no reply within 600 s")
    assert log.read_text().splitlines()[-2:] == [".....", "graders: student 'ann': no reply within 600 s"]
