"""Hypothesis strategies for the generated inputs of each lesson's checks, one module per
lesson (see graders/drawing.py, which draws them)."""
