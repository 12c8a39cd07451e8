"""Intake: the hand-ins found in SOURCE, read safely, each student's answers and hand-in time."""
