"""The room of `views`: its manifest (exercise.toml), checks, named mistakes, the drivers that
run beside student code in the worker, and helpers only its checks use. Empty on purpose: a worker imports
the drivers through this package, and must load nothing else of the grader."""
