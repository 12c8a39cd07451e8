"""Drivers: the grader's code that runs beside student code, in the worker.

A check that must build objects where the student's code lives (their Value class, a function
passed as an argument, parameters with real gradients) sends a driver's name and plain-data
arguments; the worker runs `driver(student_module, *args)` and returns what it returns. A
worker holds these modules from its zygote (graders/sandbox/fork_server.py), so they hold
nothing that is not public: no hidden input, seed, check name, expected value or oracle, and
they import only the standard library, torch, numpy and each other (tests/test_drivers.py).
The student controls the process they run in, so what a driver returns is the student's
answer like any other: the grader judges it.
"""
