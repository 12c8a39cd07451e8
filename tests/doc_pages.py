"""What the documentation pages say, read as data, so that tests can hold them to the repository: the commands
of their `bash` blocks, the repository paths they name, and the kit's reference in docs/AUTHORING.md, which is
generated from graders/kit.py.

    python tests/doc_pages.py      rewrites the kit's reference in docs/AUTHORING.md from graders/kit.py
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AUTHORING = ROOT / "docs" / "AUTHORING.md"
KIT_BEGIN = "<!-- kit reference: generated from graders/kit.py by `python tests/doc_pages.py`; do not edit -->"
KIT_END = "<!-- end of the kit reference -->"

# The top folders and files of this repository: a path a page names is one of these or below one.
_REPOSITORY_ROOTS = ("graders/", "tests/", "docs/", "benchmarks/", "exercises/", "reference/", ".ci/",
                     "course_config.py", "pyproject.toml", "constraints.txt", "README.md", "CHANGELOG.md")
_PATH = re.compile(r"(?<![\w/.<>-])((?:graders|tests|docs|benchmarks|exercises|reference|\.ci)/[\w<>*.{}/-]*"
                   r"|course_config\.py|pyproject\.toml|constraints\.txt|README\.md|CHANGELOG\.md)")


def pages() -> list[Path]:
    """Every page of documentation: the front page, docs/, the benchmarks' page and the changelog."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md",
            ROOT / "CHANGELOG.md"]


def fenced_blocks(text: str) -> list[tuple[str, list[str]]]:
    """Each fenced block of a page as (its language tag, its lines)."""
    blocks, language, lines = [], None, []
    for line in text.splitlines():
        fence = re.match(r"\s*```(\w*)", line)
        if fence and language is None:
            language, lines = fence[1], []
        elif fence:
            blocks.append((language, lines))
            language = None
        elif language is not None:
            lines.append(line.strip())
    return blocks


def commands(text: str) -> list[str]:
    """The commands of a page: each line of its `bash` blocks, without its trailing comment."""
    found = []
    for language, lines in fenced_blocks(text):
        if language != "bash":
            continue
        for line in lines:
            command = _without_comment(line)
            if command:
                found.append(command)
    return found


def _without_comment(line: str) -> str:
    """A shell line without its comment: the first `#` outside quotes that starts a word."""
    quote = None
    for at, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or line[at - 1].isspace()):
            return line[:at].strip()
    return line.strip()


def code_spans(text: str) -> list[str]:
    """Inline code (`...`) of a page, outside fenced blocks."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.findall(r"`([^`\n]+)`", prose)


def named_paths(text: str) -> set[str]:
    """The repository paths a page names: in inline code, in links and at the start of a layout line."""
    places = code_spans(text) + re.findall(r"\]\(([^)#\s]+)", text)
    for _, lines in fenced_blocks(text):
        places += [line.split()[0] for line in lines if line.split()]
    found = set()
    for place in places:
        found.update(match.rstrip(".,;:") for match in _PATH.findall(place))
    return found


def resolves(page: Path, path: str) -> bool:
    """Whether a path a page names is in the repository: `<placeholder>` and `*` match any name; a link is read
    from the page's own folder."""
    pattern = re.sub(r"<[^>]+>|\{[^}]+\}", "*", path).rstrip("/")
    bases = [ROOT] if path.startswith(_REPOSITORY_ROOTS) else []
    bases.append(page.parent)
    return any(any(base.glob(pattern)) if "*" in pattern else (base / pattern).exists() for base in bases)


class _Plain(str):
    """An annotation written as it reads in the source (they are strings here: `from __future__ import
    annotations`), without the quotes inspect would put around it."""

    def __repr__(self) -> str:
        return str(self)


def _signature(function: object) -> str:
    signature = inspect.signature(function)
    parameters = [parameter.replace(annotation=_Plain(parameter.annotation))
                  if isinstance(parameter.annotation, str) else parameter
                  for parameter in signature.parameters.values()]
    returns = signature.return_annotation
    returns = _Plain(returns) if isinstance(returns, str) else returns
    return str(signature.replace(parameters=parameters, return_annotation=returns))


def _summary(thing: object) -> str:
    doc = inspect.getdoc(thing) or ""
    first = doc.split("\n\n")[0].replace("\n", " ").strip()
    return f": {first}" if first else ""


def kit_reference() -> str:
    """The kit's public names, each with its signature and the first paragraph of its docstring, in the order
    of `graders.kit.__all__`; a class's public methods follow it."""
    sys.path.insert(0, str(ROOT))
    import graders.kit as kit

    lines = []
    for name in kit.__all__:
        thing = getattr(kit, name)
        if inspect.isclass(thing):
            lines.append(f"- class `{name}{_signature(thing)}`{_summary(thing)}")
            for method, member in vars(thing).items():
                if not method.startswith("_") and inspect.isfunction(member):
                    lines.append(f"  - `{name}.{method}{_signature(member)}`{_summary(member)}")
        elif callable(thing):
            lines.append(f"- `{name}{_signature(thing)}`{_summary(thing)}")
        else:
            lines.append(f"- `{name}`, a `{type(thing).__name__}`: `{thing!r}`" if isinstance(thing, (str, tuple))
                         else f"- `{name}`, a `{type(thing).__name__}`{_summary(type(thing))}")
    return "\n".join(lines)


def kit_reference_in_authoring() -> str:
    text = AUTHORING.read_text()
    start, end = text.index(KIT_BEGIN) + len(KIT_BEGIN), text.index(KIT_END)
    return text[start:end].strip()


def write_kit_reference() -> None:
    text = AUTHORING.read_text()
    start, end = text.index(KIT_BEGIN) + len(KIT_BEGIN), text.index(KIT_END)
    AUTHORING.write_text(text[:start] + "\n" + kit_reference() + "\n" + text[end:])


if __name__ == "__main__":
    write_kit_reference()
    print(f"wrote the kit's reference into {AUTHORING.relative_to(ROOT)}")
