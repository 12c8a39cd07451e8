"""The graders: engine, sandboxed worker, pytest plugin and the checks of each lesson."""
