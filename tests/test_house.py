"""The house's rules, read from the source: three floors that import one way (front ends -> engine
-> sandbox), the sandbox entered through its door only, checks that import the kit alone, the batch's
wings that import one way (grade/: floor -> lms -> intake -> term -> outputs -> run), no import cycle
anywhere in graders/, counting every import (inside functions and relative ones too); a sandbox that
returns facts while the engine words what a student reads; and tests that mirror the source, so that a
module's tests are found by its name."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

import course_config

GRADERS = course_config.ROOT / "graders"
SLUGS = {e.slug for lesson in course_config.LESSONS for e in lesson.exercises}


def _module_name(path: Path, graders: Path = GRADERS) -> str:
    parts = path.relative_to(graders.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, graders: Path = GRADERS) -> list[str]:
    """The graders modules a file imports anywhere in it, at the top or inside a function, absolute or relative
    (`from graders.x import y` gives graders.x.y where y is a module, else graders.x)."""
    module = _module_name(path, graders).split(".")
    package = module if path.name == "__init__.py" else module[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            # `from . import x` in graders/a/b.py names graders.a.x: relative to the file's package.
            base = ".".join([*package[:len(package) - node.level + 1], *([node.module] if node.module else [])]
                            if node.level else [node.module or ""])
            if not (base + ".").startswith("graders."):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                as_path = graders.parent.joinpath(*candidate.split("."))
                found.append(candidate if as_path.with_suffix(".py").is_file() or as_path.is_dir() else base)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if (a.name + ".").startswith("graders.")]
    return found


MODULES = {_module_name(p): p for p in GRADERS.rglob("*.py")}


def _floor(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _floor(m) == "engine"))
def test_the_engine_never_imports_a_front_end(module: str) -> None:
    wrong = [i for i in _imports(MODULES[module]) if _floor(i) == "frontends"]
    assert not wrong, f"{module} imports the front end(s) {wrong}: the engine is imported by them, not the reverse"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _floor(m) == "sandbox"))
def test_the_sandbox_imports_only_itself(module: str) -> None:
    # It finds the rooms' drivers (graders/<lesson>/<slug>/drivers.py, standard library, torch and numpy only:
    # test_drivers.py) by their path, to warm them in the zygote; nothing else of the grader may be there.
    wrong = [i for i in _imports(MODULES[module]) if _floor(i) != "sandbox"]
    assert not wrong, f"{module} imports {wrong}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _floor(m) in ("engine", "frontends", "lesson01")
                                          or m == "graders.kit"))
def test_the_sandbox_is_entered_by_its_door(module: str) -> None:
    wrong = [i for i in _imports(MODULES[module]) if i.startswith("graders.sandbox.")]
    assert not wrong, f"{module} reaches past graders.sandbox's door into {wrong}: export the name from its __init__"


@pytest.mark.parametrize("slug", sorted(SLUGS))
def test_checks_import_the_kit_and_their_own_room_only(slug: str) -> None:
    room = f"graders.lesson01.{slug}"
    for path in sorted((GRADERS / "lesson01" / slug).glob("*.py")):
        allowed = {"graders.kit", room} | {m for m in MODULES if m.startswith(room + ".")}
        if path.stem == "drivers":
            allowed = {m for m in allowed if m != "graders.kit"}  # drivers run in the worker: nothing of the grader
        wrong = [i for i in _imports(path) if i not in allowed]
        assert not wrong, f"{path.relative_to(GRADERS)} imports {wrong}: a room imports graders.kit and itself only"
        source = path.read_text()
        assert "import course_config" not in source and "from course_config" not in source, (
            f"{path.relative_to(GRADERS)} reads the course through the kit's exercise(), not course_config")


@pytest.mark.parametrize("slug", sorted(SLUGS))
def test_a_room_holds_checks_mistakes_and_nothing_that_loads_on_its_own(slug: str) -> None:
    room = GRADERS / "lesson01" / slug
    assert (room / "checks.py").is_file() and (room / "mistakes.py").is_file()
    # A worker imports its drivers through the room's package: the package itself must load nothing.
    init = ast.parse((room / "__init__.py").read_text())
    assert [type(node) for node in init.body] == [ast.Expr], f"{slug}/__init__.py holds more than its docstring"
    mistakes = ast.parse((room / "mistakes.py").read_text())
    assert not any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) for n in mistakes.body), (
        f"{slug}/mistakes.py holds the named mistakes only (their variants are code of the checks)")


def _first_cycle(graders: Path) -> list[str]:
    """An import cycle among the modules under `graders` (each module on it, the first one again at the end), or
    none. Every import counts, those inside functions too: a deferred import keeps a cycle from failing at import
    time, not the two modules from needing each other."""
    modules = {_module_name(p, graders): p for p in graders.rglob("*.py")}
    graph = {m: {i for i in _imports(p, graders) if i in modules and i != m} for m, p in modules.items()}
    # A package's __init__ is imported before its modules: an edge to a module implies one to its packages.
    for module in list(graph):
        graph[module] |= {".".join(d.split(".")[:k]) for d in list(graph[module])
                          for k in range(2, len(d.split("."))) if ".".join(d.split(".")[:k]) in modules} - {module}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1 and not module.startswith(target + "."):
                return path[path.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[module] = 2
        return []

    for module in sorted(graph):
        if module not in state and (cycle := visit(module)):
            return cycle
    return []


def test_no_import_cycle_among_the_modules() -> None:
    cycle = _first_cycle(GRADERS)
    assert not cycle, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize("a, b", [
    ("def draw() -> None:\n    from graders.engine import b\n", "from graders.engine.a import draw\n"),
    ("import graders.engine.b\n", "def write() -> None:\n    from . import a\n"),
    ("from .b import write\n", "from graders.engine import a\n"),
], ids=["inside a function", "relative, inside a function", "relative, at the top"])
def test_the_cycle_rule_reads_every_import(tmp_path: Path, a: str, b: str) -> None:
    engine = tmp_path / "graders" / "engine"
    engine.mkdir(parents=True)
    for name, text in (("__init__", ""), ("a", a), ("b", b), ("c", "from graders.engine import a, b\n")):
        (engine / f"{name}.py").write_text(text)
    (tmp_path / "graders" / "__init__.py").write_text("")
    assert _first_cycle(tmp_path / "graders") == ["graders.engine.a", "graders.engine.b", "graders.engine.a"]


# The batch's wings (graders/frontends/grade/), in order: a wing imports itself and the wings before it only. The
# modules directly in grade/ are the shared floor.
WINGS = ("", "lms", "intake", "term", "outputs", "run")
BATCH = "graders.frontends.grade"


def _wing(module: str) -> str | None:
    """The wing of a module of the batch ("" for the floor), or None for a module outside the batch."""
    if module != BATCH and not module.startswith(BATCH + "."):
        return None
    parts = module[len(BATCH) + 1:].split(".") if module != BATCH else []
    return parts[0] if len(parts) > 1 or (parts and parts[0] in WINGS) else ""


def _wing_violations(graders: Path) -> list[str]:
    """Every import, anywhere in a module of the batch, of a wing after the module's own; and every module in a
    folder of grade/ that is no wing (a new wing takes its place in WINGS)."""
    found = []
    for path in sorted((graders / "frontends" / "grade").rglob("*.py")):
        module = _module_name(path, graders)
        wing = _wing(module)
        if wing not in WINGS:
            found.append(f"{module} is in grade/{wing}/, which is no wing: place it in WINGS")
            continue
        for imported in _imports(path, graders):
            target = _wing(imported)
            if target is not None and target in WINGS and WINGS.index(target) > WINGS.index(wing):
                found.append(f"{module} ({wing or 'floor'}) imports {imported} ({target}), a wing after its own")
    return found


def test_no_wing_of_the_batch_imports_one_after_it() -> None:
    wrong = _wing_violations(GRADERS)
    assert not wrong, "the batch's wings import " + " -> ".join(WINGS[1:]) + " one way only:\n" + "\n".join(wrong)


@pytest.mark.parametrize("where, text, wrong", [
    ("term/class_term.py", "def compare() -> None:\n    from graders.frontends.grade.outputs import regrade\n",
     "graders.frontends.grade.term.class_term (term) imports graders.frontends.grade.outputs.regrade (outputs)"),
    ("intake/sources.py", "from ..term import standing\n",
     "graders.frontends.grade.intake.sources (intake) imports graders.frontends.grade.term.standing (term)"),
    ("store.py", "import graders.frontends.grade.run.main\n",
     "graders.frontends.grade.store (floor) imports graders.frontends.grade.run.main (run)"),
], ids=["inside a function", "relative", "the floor"])
def test_the_wing_rule_reads_every_import(tmp_path: Path, where: str, text: str, wrong: str) -> None:
    batch = tmp_path / "graders" / "frontends" / "grade"
    for folder in ("", "term", "outputs", "intake", "run"):
        (batch / folder).mkdir(parents=True, exist_ok=True)
        (batch / folder / "__init__.py").write_text("")
    for name in ("frontends", ""):
        (tmp_path / "graders" / name / "__init__.py").write_text("")
    for name in ("term/standing.py", "outputs/regrade.py", "run/main.py", "store.py"):
        (batch / name).write_text("")
    (batch / "outputs" / "report.py").write_text("from graders.frontends.grade.term import standing\n")  # allowed
    (batch / where).write_text(text)
    assert _wing_violations(tmp_path / "graders") == [wrong + ", a wing after its own"]


def _strings_said(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module (the pieces of its f-strings too), docstrings left out."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _floor(m) == "sandbox"))
def test_the_sandbox_says_nothing_to_the_student(module: str) -> None:
    # What it checks, and no more: no string of a sandbox module addresses its reader as "you". The sandbox returns
    # facts (sandbox/outcome.py's Fact) and the engine words what a student reads (engine/sandbox_words.py); the
    # sandbox's own sentences are for the instructor and the log (confinement, the zygote). A word test cannot tell
    # those apart otherwise: it catches the sentence written to a student, the one that must not be here.
    addressed = [(line, text[:60]) for line, text in _strings_said(MODULES[module])
                 if re.search(r"\byou(r|rs|rself)?\b", text, re.IGNORECASE)]
    assert not addressed, f"{module} words a sentence for the student (lines {addressed}): return a Fact instead"


def _engine_phrases(words: Path = GRADERS / "engine" / "sandbox_words.py") -> set[str]:
    """The fixed pieces of every sentence the engine writes of the sandbox's facts: its strings cut at their format
    fields, each piece of three words or more (shorter ones, "unknown dtype", would be found in any code's name)."""
    pieces = set()
    for _, text in _strings_said(words):
        for piece in re.split(r"\{[^}]*\}", text):
            piece = piece.strip(" ;:,()")
            if len(piece.split()) >= 3:
                pieces.add(piece)
    return pieces


def _sandbox_phrases_of_the_engine(module: Path, phrases: set[str]) -> list[tuple[int, str]]:
    return [(line, piece) for line, text in _strings_said(module) for piece in sorted(phrases) if piece in text]


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _floor(m) == "sandbox"))
def test_the_sandbox_holds_none_of_the_engines_words(module: str) -> None:
    # The rule above catches a sentence addressed to a student; this one catches a sentence the engine words from a
    # fact (a refused message's reason, what confines a worker) written again in the sandbox, whoever it addresses.
    found = _sandbox_phrases_of_the_engine(MODULES[module], _engine_phrases())
    assert not found, (f"{module} writes what graders/engine/sandbox_words.py words (line, words): {found}: return "
                       f"the fact (outcome.Fact, wire.Refusal, confinement.Confinement) and let the engine say it")


def test_the_engines_words_rule_finds_a_sentence_written_back_in_the_sandbox(tmp_path: Path) -> None:
    phrases = _engine_phrases()
    assert {"the answer nests", "lists or dicts, over the limit of", "runs as root (no namespace view to switch to an "
            "unprivileged user", "NOT CONFINED", "no cgroups (the grader is not root", "is not writable here",
            "no cgroups (no memory, pids and cpu controllers mounted here"} - phrases == {"NOT CONFINED"}, (
        "the pieces the rule looks for moved")
    wire = tmp_path / "wire.py"
    wire.write_text('def unpack(n: int) -> None:\n    """The answer nests too deep: a docstring is no sentence."""\n'
                    '    raise ValueError(f"the answer nests {n:,} lists or dicts, over the limit of {LIMIT:,}")\n')
    assert sorted(_sandbox_phrases_of_the_engine(wire, phrases)) == [(3, "lists or dicts, over the limit of"),
                                                                    (3, "the answer nests")]


def test_an_outcome_carries_facts_not_sentences() -> None:
    from graders.sandbox import Outcome

    texts = [field.name for field in dataclasses.fields(Outcome) if field.type in ("str", str)]
    assert texts == ["output"], f"Outcome has the text field(s) {texts}: only what the student's code printed is text"


# ---------------------------------------------------------------- tests mirror the source

# The floors whose modules must each have a test file of their own (graders/kit.py and graders/__main__.py, directly
# in graders/, are always checked).
FLOORS_MIRRORED = ("engine", "sandbox", "frontends")
TESTS = course_config.ROOT / "tests"


def _mirror_gaps(graders: Path, tests: Path, exemptions: dict[str, dict[str, str]],
                 floors: tuple[str, ...] = FLOORS_MIRRORED) -> list[str]:
    """Every module of the mirrored floors (and of graders/ itself) with neither a test file named after it nor an
    exemption with a reason; and every exemption that is stale: its module gone, or its test file there now.
    `exemptions` maps a floor ("" for graders/ itself) to its table, keyed by the module's dotted path below it.
    A package's __init__ is its door (re-exports, tested through its modules) and the exercise rooms
    (graders/<lesson>/) have their own tests (tests/<lesson>/<slug>/): neither is asked for one."""
    found = []
    seen: dict[str, set[str]] = {floor: set() for floor in ("", *floors)}
    for path in sorted(graders.rglob("*.py")):
        parts = path.relative_to(graders).with_suffix("").parts
        floor = parts[0] if len(parts) > 1 else ""
        if floor not in seen or parts[-1] == "__init__":
            continue
        key = ".".join(parts[1:] if floor else parts)
        seen[floor].add(key)
        home = tests / floor if floor else tests
        wanted = f"test_{parts[-1]}.py"
        # A module deep in a floor (frontends/grade/run/service.py) may have its test anywhere in the floor's tests,
        # named after it or, where two modules share a name (nbgrader/report.py, grade/outputs/report.py), after its
        # folder and it (test_nbgrader_report.py).
        named = [wanted] + ([f"test_{parts[-2]}_{parts[-1]}.py"] if len(parts) > 2 else [])
        has = any((home / name).is_file() or (floor != "" and any(home.rglob(name))) for name in named)
        exempt = exemptions.get(floor, {})
        if has and key in exempt:
            found.append(f"{path.relative_to(graders.parent)} is exempt but has {wanted} now: take "
                         f"{key!r} out of tests/test_mirror_exemptions.py")
        elif not has and key not in exempt:
            found.append(f"{path.relative_to(graders.parent)} has no tests: create "
                         f"{(home / wanted).relative_to(tests.parent)}, or exempt {key!r} in "
                         f"tests/test_mirror_exemptions.py with the reason it needs none")
        elif key in exempt and not exempt[key].strip():
            found.append(f"{key!r} is exempt in tests/test_mirror_exemptions.py without a reason")
    for floor, keys in seen.items():
        found += [f"tests/test_mirror_exemptions.py exempts {key!r} of {floor or 'graders/'}, which is no module "
                  f"there now: take it out" for key in sorted(set(exemptions.get(floor, {})) - keys)]
    return found


def test_every_module_has_its_tests_by_name_or_a_reason_for_none() -> None:
    import test_mirror_exemptions as table

    exemptions = {"": table.HOUSE, "engine": table.ENGINE, "sandbox": table.SANDBOX, "frontends": table.FRONTENDS}
    gaps = _mirror_gaps(GRADERS, TESTS, exemptions)
    assert not gaps, "tests mirror the source (issue 43):\n" + "\n".join(gaps)


def test_the_mirror_rule_names_the_file_to_create_and_every_stale_exemption(tmp_path: Path) -> None:
    graders, tests = tmp_path / "graders", tmp_path / "tests"
    for name in ("engine/__init__.py", "engine/tested.py", "engine/untested.py", "engine/wiring.py",
                 "engine/now_tested.py", "frontends/grade/run/service.py", "lesson01/views/checks.py", "kit.py"):
        (graders / name).parent.mkdir(parents=True, exist_ok=True)
        (graders / name).write_text("")
    for name in ("engine/test_tested.py", "engine/test_now_tested.py"):
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).write_text("")
    exemptions = {"": {}, "engine": {"wiring": "two lines", "now_tested": "was wiring", "gone": "went"}}
    assert _mirror_gaps(graders, tests, exemptions, ("engine", "sandbox")) == [
        "graders/engine/now_tested.py is exempt but has test_now_tested.py now: take 'now_tested' out of "
        "tests/test_mirror_exemptions.py",
        "graders/engine/untested.py has no tests: create tests/engine/test_untested.py, or exempt 'untested' in "
        "tests/test_mirror_exemptions.py with the reason it needs none",
        "graders/kit.py has no tests: create tests/test_kit.py, or exempt 'kit' in tests/test_mirror_exemptions.py "
        "with the reason it needs none",
        "tests/test_mirror_exemptions.py exempts 'gone' of engine, which is no module there now: take it out",
    ]
    # A floor not yet mirrored is not read; once it is, a module deep in it may have its test anywhere in its tests.
    assert not [gap for gap in _mirror_gaps(graders, tests, exemptions, ("engine",)) if "frontends" in gap]
    assert [gap for gap in _mirror_gaps(graders, tests, exemptions, ("engine", "frontends")) if "frontends" in gap]
    (tests / "frontends").mkdir()
    (tests / "frontends" / "test_run_service.py").write_text("")  # named after its folder and itself
    assert not [gap for gap in _mirror_gaps(graders, tests, exemptions, ("engine", "frontends")) if "frontends" in gap]
