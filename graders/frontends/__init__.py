"""The ways into the grader, one module or package per verb: the pytest plugin, the CLI, the batch
(`grade`), nbgrader, the handout (`release`), Gradescope and GitHub Classroom. They import the engine, never
the other way round."""
