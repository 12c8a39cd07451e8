"""Each exercise's manifest, graders/<lesson>/<slug>/exercise.toml, is what course_config.py
serves (read by graders/engine/manifests.py): every one loads, the objects equal what the files say, a broken one stops the import
with its file and key named, the student bundle's copies hold no hidden check, and
`python -m graders config` prints them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any, Callable

import pytest

import course_config
from graders.engine.manifests import ManifestError, manifest_path, read_exercise
from graders.frontends.nbgrader.bundle import PACKAGE, rename, write_bundle
from graders.frontends.nbgrader.public_checks import public_checks, public_manifest, toml_text

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
EXERCISES = LESSON.exercises
IDS = [e.slug for e in EXERCISES]


def _manifest(exercise: course_config.Exercise) -> dict[str, Any]:
    with manifest_path(LESSON.folder, exercise.slug).open("rb") as file:
        return tomllib.load(file)


def test_every_exercise_folder_has_a_manifest_and_every_manifest_is_listed() -> None:
    found = {p.parent.name for p in (ROOT / "graders" / LESSON.folder).glob("*/exercise.toml")}
    assert found == set(IDS)


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_course_config_serves_what_the_manifest_says(exercise: course_config.Exercise) -> None:
    data = _manifest(exercise)
    assert (exercise.title, exercise.section) == (data["title"], data["section"])
    assert [(c.id, c.points, c.hidden, c.how, c.description) for c in exercise.checks] == [
        (c["id"], c["points"], c.get("hidden", False), c.get("how", False), c["description"]) for c in data["checks"]]
    seeds = {name: entry if isinstance(entry, int) else entry["value"] for name, entry in data.get("seeds", {}).items()}
    assert {name: s.value for name, s in exercise.seeds.items()} == seeds
    assert exercise.seeds["twins"].description == course_config.TWINS, "every exercise has the shared twins seed"
    assert {name: (s.value, s.description) for name, s in exercise.tolerances.items()} == {
        name: (entry["value"], entry["description"]) for name, entry in data.get("tolerances", {}).items()}
    assert "withheld_points" not in data, "only the bundle's copies say what they left out"


def test_the_exercises_points_add_up_to_the_lessons_100() -> None:
    by_manifest = {e.slug: sum(c["points"] for c in _manifest(e)["checks"]) for e in EXERCISES}
    assert by_manifest == pytest.approx({e.slug: e.points for e in EXERCISES})
    assert sum(by_manifest.values()) == pytest.approx(100) and LESSON.points == pytest.approx(100), (
        f"lesson {LESSON.number}'s exercises add up to {LESSON.points:g} points, not 100: a new exercise's points come "
        "from others (in course_config.py and in their manifests)")


# Each broken manifest: how the views manifest is changed, and what the error must say besides its file.
BROKEN: dict[str, tuple[Callable[[dict[str, Any]], object], str]] = {
    "missing title": (lambda d: d.pop("title"), "missing key title"),
    "missing check description": (lambda d: d["checks"][1].pop("description"), "missing key checks[2].description"),
    "points as text": (lambda d: d["checks"][0].update(points="1.5"), "key checks[1].points should be a number"),
    "points as a boolean": (lambda d: d["checks"][0].update(points=True), "key checks[1].points should be a number"),
    "hidden as text": (lambda d: d["checks"][4].update(hidden="yes"), "key checks[5].hidden should be true or false"),
    "misspelt key": (lambda d: d["checks"][4].update(hiden=True), "unknown key checks[5].hiden"),
    "repeated id": (lambda d: d["checks"][1].update(id=d["checks"][0]["id"]), "key checks[2].id"),
    "seed as a float": (lambda d: d["seeds"]["fresh_tensors"].update(value=1.5),
                        "key seeds.fresh_tensors.value should be an integer"),
    "twins with a table": (lambda d: d["seeds"].update(twins={"value": 1, "description": "x"}),
                           "key seeds.twins should be an integer"),
    "tolerance as text": (lambda d: d["tolerances"]["values"].update(value="0"),
                          "key tolerances.values.value should be a number"),
    "tolerance without description": (lambda d: d["tolerances"]["values"].pop("description"),
                                      "missing key tolerances.values.description"),
    "points that do not add up": (lambda d: d["checks"][0].update(points=2.5), "the checks' points add up to 7"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_manifest_names_its_file_and_key(case: str, tmp_path: Path) -> None:
    change, said = BROKEN[case]
    data = _manifest(course_config.LESSON_01.exercise("views"))
    change(data)
    manifest = tmp_path / LESSON.folder / "views" / "exercise.toml"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(toml_text(data))
    with pytest.raises(ManifestError) as raised:
        read_exercise(manifest, points=LESSON.exercise("views").points, shared_seeds=course_config.SHARED_SEEDS)
    assert str(raised.value).startswith(f"{manifest}: ") and said in str(raised.value)


def test_a_broken_manifests_message_says_what_was_wrong_and_what_to_write(tmp_path: Path) -> None:
    """The whole message, for a value of the wrong kind, an unknown key and a missing one."""
    manifest = tmp_path / LESSON.folder / "views" / "exercise.toml"
    manifest.parent.mkdir(parents=True)
    for change, said in (
            (lambda d: d["checks"][2].update(points="1"),
             'key checks[3].points should be a number, not "1" (what the check is worth; e.g. points = 0.5)'),
            (lambda d: d.update(sections="1.3"),
             "unknown key sections: correct its spelling or remove it (the keys here are: title, section, checks, "
             "seeds, tolerances, withheld_points)"),
            (lambda d: d["checks"][0].pop("id"),
             'missing key checks[1].id; add it (the check\'s name; its test is test_<id> in checks.py; '
             'e.g. id = "shape_of_the_result")')):
        data = _manifest(LESSON.exercise("views"))
        change(data)
        manifest.write_text(toml_text(data))
        with pytest.raises(ManifestError) as raised:
            read_exercise(manifest, points=LESSON.exercise("views").points, shared_seeds=course_config.SHARED_SEEDS)
        assert str(raised.value) == f"{manifest}: {said}"


def test_a_missing_or_unreadable_manifest_stops_the_import_by_name(tmp_path: Path) -> None:
    """In the student bundle's layout (course_config.py inside the engine folder): one manifest not TOML, one absent."""
    write_bundle(tmp_path, LESSON, list(EXERCISES), {})
    bundle = tmp_path / PACKAGE
    views = bundle / LESSON.folder / "views" / "exercise.toml"
    views.write_text(views.read_text().replace("[[checks]]", "[[checks]", 1))
    said = _import_course_config(bundle)
    assert said.returncode != 0 and f"ManifestError: {views}: not valid TOML" in said.stderr, said.stderr
    views.unlink()
    said = _import_course_config(bundle)
    assert said.returncode != 0 and f"ManifestError: {views}: cannot read the manifest of lesson01/views" in said.stderr


def _import_course_config(bundle: Path, code: str = "import course_config") -> subprocess.CompletedProcess:
    """Run `code` as a student's run does in the bundle: its folder and the folder above on the path."""
    path = os.pathsep.join([str(bundle.parent), str(bundle)])
    return subprocess.run([sys.executable, "-c", code], cwd=bundle, env={**os.environ, "PYTHONPATH": path},
                          capture_output=True, text=True, timeout=120)


def _released_checks(exercise: course_config.Exercise) -> str:
    return public_checks((ROOT / "graders" / LESSON.folder / exercise.slug / "checks.py").read_text(), exercise,
                         (ROOT / "reference" / LESSON.folder / f"{exercise.slug}.py").read_text())[0]


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_the_released_manifest_has_the_public_checks_only(exercise: course_config.Exercise) -> None:
    text = public_manifest(manifest_path(LESSON.folder, exercise.slug), _released_checks(exercise))
    released = tomllib.loads(text)
    assert [c["id"] for c in released["checks"]] == [c.id for c in exercise.checks if not c.hidden]
    hidden = [c for c in exercise.checks if c.hidden]
    assert hidden, "every exercise has hidden checks"
    for check in hidden:
        assert check.id not in text and check.description not in text
    assert released["withheld_points"] == sum(c.points for c in hidden)
    full = _manifest(exercise)
    assert {k: v for k, v in released.items() if k not in ("checks", "withheld_points", "seeds", "tolerances")} == {
        k: v for k, v in full.items() if k not in ("checks", "seeds", "tolerances")}
    for table in ("seeds", "tolerances"):  # a subset, as the full manifest gives it
        assert all(full[table][name] == value for name, value in released.get(table, {}).items()), table


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_the_released_manifest_keeps_only_the_settings_its_released_checks_name(
        exercise: course_config.Exercise) -> None:
    """Enough for the public checks (tests/frontends/test_handout.py grades every reference with them), and no
    seed or tolerance that only hidden checks or the twin runs read: it would name a hidden input."""
    checks = _released_checks(exercise)
    released = tomllib.loads(public_manifest(manifest_path(LESSON.folder, exercise.slug), checks))
    for table in ("seeds", "tolerances"):
        for name in released.get(table, {}):
            assert f'"{name}"' in checks and name != "twins", f"{table}.{name} is released but no public check reads it"
        for name in set(_manifest(exercise).get(table, {})) - set(released.get(table, {})):
            assert f'"{name}"' not in checks or name == "twins", f"{table}.{name} is read by a public check, not released"


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_the_toml_writer_gives_back_the_same_data_and_types(exercise: course_config.Exercise) -> None:
    data = _manifest(exercise)
    assert repr(tomllib.loads(toml_text(data))) == repr(data)  # repr: 1 and 1.0 differ


def test_the_bundles_course_config_is_this_one_and_serves_public_checks_only(tmp_path: Path) -> None:
    write_bundle(tmp_path, LESSON, list(EXERCISES), {})
    bundle = tmp_path / PACKAGE
    assert (bundle / "course_config.py").read_text() == rename(Path(course_config.__file__).read_text())
    code = ("import json, course_config as c; print(json.dumps([c.__file__, c.read_exercises.__module__, "
            "{e.slug: [[k.id, k.hidden] for k in e.checks] for e in c.LESSON_01.exercises}]))")
    said = _import_course_config(bundle, code)
    assert said.returncode == 0, said.stderr
    where, reader, checks = json.loads(said.stdout)
    assert Path(where) == bundle / "course_config.py" and reader == f"{PACKAGE}.engine.manifests"
    assert checks == {e.slug: [[c.id, False] for c in e.checks if not c.hidden] for e in EXERCISES}


def _config(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graders", "config", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)  # this checkout's graders


def test_python_m_graders_config_prints_the_settings() -> None:
    shown = _config()
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "call_seconds = 10.0" in out and "HIDDEN_CHECKS_SHOW = 'mistake'" in out
    assert "views: 6 points" in out and "as_grid_and_flatten_on_fresh_tensors: 0.5 points [hidden]" in out
    assert "twins = 20261303" in out and "fresh_tensors = 20261205" in out
    assert all(f"\n{e.slug}: " in out for e in EXERCISES)
    one = _config("--exercise", "quadratic_fit")
    assert one.returncode == 0 and "least_squares = 1e-05" in one.stdout and "views:" not in one.stdout
    unknown = _config("--exercise", "no_such_exercise")
    assert unknown.returncode != 0 and "--exercise no_such_exercise" in unknown.stderr and "quick_check" in unknown.stderr
