"""`python -m graders grade SOURCE --out DIR`: a whole class graded in parallel, in every format.

sources.py finds the submissions (an nbgrader course, folders laid out like exercises/,
notebooks or a zip of them) and answers.py takes the answers out of notebooks without a
kernel; store.py keys each result by what was graded, so a rerun grades only what changed;
cluster.py grades them on Dask distributed (a cluster of this machine's processes, or a running
one), where each Dask worker keeps warm grading services (dask_worker.py) that are fresh
processes (service.py) grading under the usual sandbox;
the outputs (CSV, HTML, Gradescope, GitHub Classroom, nbgrader's gradebook) are written from
the stored results by the modules named after them. main.py ties these together.
"""
