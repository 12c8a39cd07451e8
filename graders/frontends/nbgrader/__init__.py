"""nbgrader packaging: build a course from the exercises, and what its notebook runs."""
