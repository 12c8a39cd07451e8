"""The grading engine: runs checks against a student's worker, compares, scores, explains.

It imports the sandbox (through its door, `graders.sandbox`) and never a front end."""
