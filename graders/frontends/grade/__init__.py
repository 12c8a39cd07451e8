"""`python -m graders grade SOURCE --out DIR`: a whole class graded in parallel, in every format.

The batch is in wings, each importing only the wings before it (tests/test_house.py holds the order):

    store.py, spreadsheet.py, person.py   the shared floor: stored results, the CSV guard, a roster's person
    lms/       one module per LMS (its download layout, roster exports, grade imports) in one ordered registry
    intake/    the hand-ins in SOURCE, read safely (handed_in.py), each student's answers and hand-in time
    term/      due date and late policy, the roster, the ledger of decisions, each student's standing
    outputs/   what is written from the stored results: tables, HTML pages, similarity, regrade changes
    run/       the command's steps (main.py), the Dask cluster and its warm grading services

nbgrader's gradebook, read and written both ways, is beside the nbgrader front end (frontends/nbgrader/).
"""
