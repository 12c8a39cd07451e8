"""similarity.html: the pairs of similar answers (similarity.py), each pair's two answers side by side with the
matching lines marked; a list to review, never a verdict. Every student id and answer is escaped."""

from __future__ import annotations

from graders.frontends.wording import counted
from graders.frontends.grade.outputs.html_page import escape, page
from graders.frontends.grade.outputs.similarity import Pair, alike_groups
from graders.frontends.grade.store import file_name

REVIEW_NOTE = ("This is a list of answers to read side by side, not a verdict. Short exercises have few good "
               "answers, and students who studied together write alike: only a person who reads both answers, "
               "and asks the students, can tell copying from that.")
NOT_COMPARED_NOTE = ("These answers, or pairs of answers, were left out of the comparison, so the pairs below "
                     "may not be all there are. Read the answers named here yourself.")


def similarity_html(pairs: list[Pair], answers: dict[str, dict[str, str]],
                    archive: dict[str, dict[str, str]] | None = None, not_compared: list[str] | None = None) -> str:
    """A page of the pairs: what was not compared, a table, then each pair's two answers side by side, matching
    lines marked."""
    archive = archive or {}
    body = [f"<h1>Similar answers: {counted(len(pairs), 'pair')} to review</h1>",
            f'<p class="note">{escape(REVIEW_NOTE)}</p>',
            "<p>Names, comments and spacing do not count; code the stubs give, and code many students wrote alike, "
            "does not either. Similarity is the larger share of one answer's own code found in the other.</p>"]
    if not_compared:  # said first: a list that looks complete must be
        body.append(f'<h2 id="not-compared">Not compared</h2><p class="note">{escape(NOT_COMPARED_NOTE)}</p><ul>'
                    + "".join(f"<li>{escape(line)}</li>" for line in not_compared) + "</ul>")
    if not pairs:
        body.append("<p>No two answers compared look alike.</p>" if not_compared else
                    "<p>No two answers look alike.</p>")
        return page("Similar answers", "\n".join(body))
    crowds = [(exercise, members) for exercise, members in alike_groups(
        [(pair.exercise, pair.first, pair.second) for pair in pairs]) if len(members) > 2]
    if crowds:
        body.append("<p>Three or more students linked by alike answers (one answer handed around, or the same "
                    "source):</p><ul>" + "".join(
                        f"<li>{escape(exercise)}: {len(members)} students, "
                        f"{', '.join(_who(m, answers) for m in members)}</li>" for exercise, members in crowds)
                    + "</ul>")
    body.append("<table><tr><th>exercise</th><th>first</th><th>second</th><th>similarity</th></tr>")
    for number, pair in enumerate(pairs, 1):
        body.append(f"<tr><td>{escape(pair.exercise)}</td><td>{_who(pair.first, answers)}</td>"
                    f"<td>{_who(pair.second, answers)}</td>"
                    f'<td><a href="#pair-{number}">{pair.similarity:.0%}</a></td></tr>')
    body.append("</table>")
    for number, pair in enumerate(pairs, 1):
        sides = [_side(name, _source(name, pair.exercise, answers, archive), blocks, answers)
                 for name, blocks in ((pair.first, pair.first_blocks), (pair.second, pair.second_blocks))]
        body.append(f'<h2 id="pair-{number}">{escape(pair.exercise)}: {pair.similarity:.0%}</h2>'
                    f'<table style="table-layout: fixed; width: 100%"><tr>{"".join(sides)}</tr></table>')
    return page("Similar answers", "\n".join(body))


def _who(name: str, answers: dict[str, dict[str, str]]) -> str:
    """A student of this term, linked to their feedback; an archived answer, named as it is."""
    if name in answers:
        return f'<a href="feedback/{escape(file_name(name))}.html">{escape(name)}</a>'
    return f"{escape(name)} (an earlier term)"


def _source(name: str, exercise: str, answers: dict[str, dict[str, str]], archive: dict[str, dict[str, str]]) -> str:
    answered = answers.get(name, archive.get(name))
    if answered is None or exercise not in answered:
        raise ValueError(f"similarity_html: no answer of {name!r} to {exercise!r} in answers or archive: "
                         f"pass the answers and archive that similar_pairs compared")
    return answered[exercise]


def _side(name: str, source: str, blocks: list[tuple[int, int]], answers: dict[str, dict[str, str]]) -> str:
    marked = {line for first, last in blocks for line in range(first, last + 1)}
    rows = []
    # split at "\n" only, as the tokenizer counted the lines (splitlines would also split at \f, \x1c, ...)
    for number, line in enumerate(source.removesuffix("\n").split("\n"), 1):
        text = f"{number:4d}  {escape(line)}"
        rows.append(f"<mark>{text}</mark>" if number in marked else text)
    return (f'<td style="vertical-align: top; width: 50%">{_who(name, answers)}'
            f'<pre style="font-size: 0.75rem">{chr(10).join(rows)}</pre></td>')
