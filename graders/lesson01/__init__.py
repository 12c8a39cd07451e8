"""Checks of lesson 1, one module per exercise (named by its slug)."""
