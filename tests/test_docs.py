"""The documentation cannot go stale silently: the README stays a front page that opens with the two commands
CI runs, every command of a page's `bash` blocks is run by a test (here, or by the test file that holds its
words), every `python -m graders` command a page gives parses with the real command line, every repository
path a page names exists, the kit's reference in docs/AUTHORING.md is the kit's code, and no passage stands
in two pages. What the pages say is read by doc_pages.py."""

from __future__ import annotations

import argparse
import ast
import functools
import os
import re
import shlex
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import doc_pages
from conftest import ROOT, STUBS
from graders.frontends import cli

PAGES = doc_pages.pages()
FRONT_PAGE_LINES = 300
ROLE_PAGES = ("students", "nbgrader", "batch", "platforms", "security", "architecture", "AUTHORING")

# Paths a page gives as examples of what a student may or may not write: not files of this repository.
EXAMPLE_PATHS = {"exercises/lesson01/helpers.py", "exercises/common.py"}
EXAMPLE_EXERCISE = "scale_rows"  # what docs/AUTHORING.md's walk-through scaffolds

# Commands this file runs itself (quick, on the committed stubs or in a scratch folder).
STUDENT_RUNS = ("pytest exercises/", "pytest exercises/ -k sin_exp_derivative", "pytest exercises/ -k analytic",
                "pytest exercises/ -x", "pytest exercises/ -k sin_exp_derivative --in-process -s")
SETTINGS = ("python -m graders config", "python -m graders config --exercise views")
LEDGER_PAGE = ROOT / "docs" / "batch.md"
NBGRADER_PAGE = ROOT / "docs" / "nbgrader.md"
# nbgrader.md's commands that no other test runs, run here in the page's order on a course of one exercise.
NBGRADER_STEPS = ("python -m graders nbgrader build", "nbgrader generate_assignment", "nbgrader release_assignment",
                  "nbgrader zip_collect", "python -m graders nbgrader check", "nbgrader db student list")

# Commands of other tools that need what a test machine does not have, each with why it is not run.
NOT_RUN = {
    "dask ssh --nworkers 4 --nthreads 1 host0 host1 host2": "starts Dask on three other machines over SSH",
    "python -c \"from dask_jobqueue import SLURMCluster as C; c = C(cores=1, processes=1, memory='4GB'); "
    "c.scale(jobs=40); print(c.scheduler_address); input()\"": "submits jobs to a Slurm cluster",
    "mkdir -p /tmp/exchange && chmod 777 /tmp/exchange": "makes nbgrader's shared exchange folder on the machine",
    "cd scratch-course": "moves the shell into the course the command before built",
}


def _page_commands() -> list[tuple[str, str]]:
    return [(page.relative_to(ROOT).as_posix(), command) for page in PAGES
            for command in doc_pages.commands(page.read_text())]


def _install(command: str) -> bool:
    return bool(re.match(r"(python -m )?pip install ", command))


def _benchmark(command: str) -> bool:
    return command.startswith("python benchmarks/")


def _runs_tests(command: str) -> bool:
    return bool(re.match(r"(python -m )?pytest tests/", command))


def _words(command: str) -> list[str]:
    """What names a command: its program, the subcommands after it and its options (values are examples)."""
    tokens = shlex.split(command)
    if tokens[:2] == ["python", "-m"]:
        tokens = tokens[2:]
    words, leading = [tokens[0]], True
    for token in tokens[1:]:
        if token.startswith("-"):
            words.append(token.split("=")[0])
        elif leading and re.fullmatch(r"[a-z_]+", token):
            words.append(token)
        else:
            leading = False
    return words


@functools.cache
def _strings_of_test_files() -> dict[str, frozenset[str]]:
    found = {}
    for path in sorted(ROOT.glob("tests/**/test_*.py")):
        if path.name == Path(__file__).name:
            continue
        tree = ast.parse(path.read_text())
        found[path.relative_to(ROOT).as_posix()] = frozenset(
            node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str))
    return found


def _tests_running(command: str) -> list[str]:
    """The test files that hold every word of a command as a string of their own, as a test that runs it does."""
    words = _words(command)
    return [path for path, strings in _strings_of_test_files().items()
            if all(word in strings or any(text.startswith(word + "=") or ("." in word and word in text.split())
                                          for text in strings) for word in words)]


def test_the_readme_opens_with_the_two_commands_and_ci_runs_the_second() -> None:
    readme = (ROOT / "README.md").read_text()
    first, second = doc_pages.commands(readme)[:2]
    assert first == "python -m pip install -e . -c constraints.txt && python -m pytest exercises/", first
    assert second.startswith('python -m pip install -e ".[test]" -c constraints.txt && python -m pytest tests/'), second
    assert readme.index(first) < readme.index("##"), "the two commands come before the first section"
    ci = (ROOT / ".ci" / "run").read_text()
    assert second in ci, f".ci/run no longer runs the README's test command: {second}"


def test_the_readme_is_a_front_page_that_links_every_role_page() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= FRONT_PAGE_LINES, "the README is the front page: move the detail to docs/"
    for name in ROLE_PAGES:
        assert f"(docs/{name}.md)" in readme, f"the README does not send anyone to docs/{name}.md"
        assert (ROOT / "docs" / f"{name}.md").is_file()


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_repository_path_a_page_names_exists(page: Path) -> None:
    missing = sorted(path for path in doc_pages.named_paths(page.read_text())
                     if path not in EXAMPLE_PATHS and EXAMPLE_EXERCISE not in path and not doc_pages.resolves(page, path))
    assert not missing, f"{page.relative_to(ROOT)} names paths this repository does not have: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_link_to_a_section_finds_it(page: Path) -> None:
    broken = []
    for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", page.read_text()):
        linked = (page.parent / target).resolve() if target else page
        headings = re.findall(r"^#+ (.+)$", linked.read_text(), flags=re.M)
        anchors = {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}
        if anchor not in anchors:
            broken.append(f"{target}#{anchor}")
    assert not broken, f"{page.relative_to(ROOT)} links to sections that are not there: {broken}"


def test_the_kit_reference_in_authoring_is_the_kits_code() -> None:
    assert doc_pages.kit_reference_in_authoring() == doc_pages.kit_reference(), (
        "graders/kit.py changed: run `python tests/doc_pages.py` to write docs/AUTHORING.md's kit reference again")


def test_every_command_of_a_page_is_run_by_a_test() -> None:
    """Each line of a page's `bash` blocks is run by this file (a student's runs, the settings, the ledger),
    by a test file that holds its words, or is an install, a benchmark or a run of these tests, each checked
    below; only the commands of NOT_RUN, for other machines, are not run."""
    unaccounted = []
    for page, command in _page_commands():
        if (command in STUDENT_RUNS or command in SETTINGS or command in NOT_RUN or _install(command)
                or command.startswith(NBGRADER_STEPS)
                or _benchmark(command) or _runs_tests(command) or command.startswith("python -m graders decide")):
            continue
        if not _tests_running(command):
            unaccounted.append(f"{page}: {command}  (words {_words(command)})")
    assert not unaccounted, "no test runs these commands:\n" + "\n".join(unaccounted)


def _subparser(parser: argparse.ArgumentParser, words: list[str]) -> argparse.ArgumentParser | None:
    """The parser of `python -m graders WORDS...`, following the subcommands a text names; None for a verb it lacks."""
    for word in words:
        choices = next((action.choices for action in parser._actions
                        if isinstance(action, argparse._SubParsersAction)), None)
        if choices is None:
            return parser
        if word not in choices:
            return None
        parser = choices[word]
    return parser


def test_every_graders_command_a_page_gives_parses() -> None:
    """A whole command of a block parses with the real command line (graders/frontends/cli.py); a command named
    in running text names verbs and options it has. An option renamed in the code fails here."""
    refused = []
    for page in PAGES:
        text = page.read_text()
        spans = [span for span in doc_pages.code_spans(text) if span.startswith("python -m graders ")]
        for command in doc_pages.commands(text) + spans:
            for part in command.split("&&"):
                tokens = shlex.split(part.strip().replace("...", ""))
                if tokens[:3] != ["python", "-m", "graders"]:
                    continue
                if command not in spans:
                    try:
                        cli.parser().parse_args(tokens[3:])
                    except SystemExit:
                        refused.append(f"{page.name}: {part.strip()}")
                    continue
                verbs = [token for token in tokens[3:] if re.fullmatch(r"[a-z]+", token)]
                parser = _subparser(cli.parser(), verbs)
                known = {option for action in parser._actions for option in action.option_strings} if parser else set()
                options = [token.split("=")[0] for token in tokens[3:] if token.startswith("-")]
                if parser is None or not set(options) <= known:
                    refused.append(f"{page.name}: {part.strip()}")
    assert not refused, "the command line refuses these:\n" + "\n".join(refused)


@pytest.mark.parametrize("command", STUDENT_RUNS)
def test_a_students_command_runs(command: str) -> None:
    """On the committed stubs, as a student starts: every check ran and the total is printed."""
    assert any(command == given for _, given in _page_commands()), f"no page gives {command!r} any more"
    environment = {**os.environ, "GRADERS_CACHE_DIR": "off"}
    run = subprocess.run([sys.executable, "-m", *shlex.split(command), "-p", "no:cacheprovider"], cwd=STUBS.parent,
                         env=environment, capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]  # 1: the stubs fail their checks
    assert re.search(r"^Lesson 1: 0 / \d+ points", run.stdout, flags=re.M), run.stdout[-3000:]
    assert "not implemented yet" in run.stdout


@pytest.mark.parametrize("command", SETTINGS)
def test_the_settings_commands_print_the_settings(command: str) -> None:
    assert any(command == given for _, given in _page_commands()), f"no page gives {command!r} any more"
    run = subprocess.run([sys.executable, *shlex.split(command)[1:]], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert "tolerance" in run.stdout.lower() and "seed" in run.stdout.lower(), run.stdout[-2000:]


def test_the_ledger_commands_of_the_term_run_in_order(tmp_path: Path) -> None:
    """The `decide` commands of the term's walk-through, in the page's order, into a ledger of their own."""
    given = [command for command in doc_pages.commands(LEDGER_PAGE.read_text())
             if command.startswith("python -m graders decide")]
    assert len(given) >= 5, given
    for command in given:
        run = subprocess.run([sys.executable, *shlex.split(command)[1:]], cwd=tmp_path, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, f"{command}\n{run.stdout}\n{run.stderr}"
    ledger = (tmp_path / "decisions.csv").read_text()
    assert "medical note" in ledger and "withdrew from the course" in ledger, ledger


def test_the_nbgrader_course_commands_run_in_order(tmp_path: Path) -> None:
    """nbgrader.md's worked example as written, in its order, with one exercise (`--exercise views`, to keep it
    short) and the exchange in a scratch folder: build, generate, release, collect a zip from an LMS, check,
    list the students. Autograde, feedback and export are run by tests/frontends/test_nbgrader.py."""
    given = [command for command in doc_pages.commands(NBGRADER_PAGE.read_text()) if command.startswith(NBGRADER_STEPS)]
    assert [next(step for step in NBGRADER_STEPS if command.startswith(step)) for command in given] == \
        list(NBGRADER_STEPS), given
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    build, *in_course = given
    tokens = shlex.split(build)
    run = subprocess.run([sys.executable, *tokens[1:], "--exercise", "views"], cwd=tmp_path, env=environment,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    course = tmp_path / tokens[tokens.index("build") + 1]
    for command in in_course:
        command = command.replace("/tmp/exchange", str(exchange))
        if command.startswith("nbgrader zip_collect"):  # an LMS's zip of one student's notebook, as the page says
            archive = course / "downloaded" / "lesson01" / "archive"
            archive.mkdir(parents=True)
            notebook = course / "release" / "lesson01" / "lesson01.ipynb"
            with zipfile.ZipFile(archive / "download.zip", "w") as download:
                download.write(notebook, "alice_lesson01.ipynb")
        tokens = shlex.split(command)
        argv = [sys.executable, *tokens[1:]] if tokens[0] == "python" else tokens
        run = subprocess.run(argv, cwd=course, env=environment, capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, f"{command}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    assert (exchange / "dl-pytorch" / "outbound" / "lesson01" / "lesson01.ipynb").is_file()
    assert (course / "submitted" / "alice" / "lesson01" / "lesson01.ipynb").is_file()


def test_every_install_command_names_an_extra_the_project_has() -> None:
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    for page, command in _page_commands():
        if not _install(command):
            continue
        named = re.findall(r"\.\[(\w+)\]", command)
        assert set(named) <= extras, f"{page}: {command} names an extra pyproject.toml lacks: {set(named) - extras}"
        assert "-c constraints.txt" in command, f"{page}: {command} installs without the project's pins"


def test_every_benchmark_command_starts_and_takes_its_arguments() -> None:
    """The benchmarks take minutes to an hour and are run by hand (benchmarks/README.md keeps what they printed);
    here each script named starts and accepts the options the page gives it."""
    for page, command in _page_commands():
        if not _benchmark(command):
            continue
        tokens = shlex.split(command)
        script = ROOT / tokens[1]
        assert script.is_file(), f"{page}: {command}"
        run = subprocess.run([sys.executable, str(script), "--help"], cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, f"{page}: {command}\n{run.stderr}"
        options = [token for token in tokens[2:] if token.startswith("-")]
        assert all(option in run.stdout for option in options), f"{page}: {command}: {run.stdout}"


def test_every_command_that_runs_these_tests_names_test_files_that_exist() -> None:
    for page, command in _page_commands():
        if _runs_tests(command):
            named = [token for token in shlex.split(command) if token.startswith("tests/")]
            assert named and all((ROOT / path).exists() for path in named), f"{page}: {command}"


def test_the_commands_not_run_are_still_given() -> None:
    given = {command for _, command in _page_commands()}
    assert set(NOT_RUN) <= given, f"no page gives these any more: drop them from NOT_RUN: {set(NOT_RUN) - given}"


def test_no_passage_stands_in_two_pages() -> None:
    """Every fact has one page: a sentence of some length found in two pages is a copy to remove (link instead)."""
    owner: dict[str, str] = {}
    copies = []
    for page in PAGES:
        prose = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        prose = re.sub(r"\s+", " ", prose)
        for sentence in re.split(r"(?<=[.:;])\s", prose):
            sentence = sentence.strip()
            if len(sentence) < 90 or sentence.startswith("|"):
                continue
            name = page.relative_to(ROOT).as_posix()
            if sentence in owner and owner[sentence] != name:
                copies.append(f"{owner[sentence]} and {name}: {sentence[:120]}")
            owner.setdefault(sentence, name)
    assert not copies, "\n".join(copies)
