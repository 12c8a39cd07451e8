"""A student as the roster names them: shared by the LMS modules that read rosters, the term and the outputs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Person:
    """One row of the roster: the ids an LMS knows a student by, and how to address them."""

    id: str  # the id the grader files the student under (an LMS download's id, a folder name)
    name: str = ""
    email: str = ""
    sis_id: str = ""  # the student information system's id (Canvas "SIS User ID", Moodle "ID number")
    login: str = ""  # Canvas "SIS Login ID", Moodle "Username"
    section: str = ""
