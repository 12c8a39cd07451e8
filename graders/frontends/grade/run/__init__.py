"""The run: the command's steps (main.py), the Dask cluster and its warm grading services."""
