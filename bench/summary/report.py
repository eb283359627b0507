"""A benchmark's results page: its tables and its plot, made from its
samples file, with the run's facts."""

import os

from . import svg


class Summary:
    """What a benchmark's module makes of its samples: `anchor` is its
    section of bench/README.md; `sections` are (heading, markdown)."""

    def __init__(self, title, anchor):
        self.title, self.anchor = title, anchor
        self.sections = []
        self.panels = []


def table(header, rows):
    """Markdown; the first column left-aligned, the others (numbers) right."""
    lines = ["| " + " | ".join(header) + " |",
             "| --- |" + " ---: |" * (len(header) - 1)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write(results, name, summary, samples):
    """results/<name>.md and results/<name>.svg."""
    md = [f"# {summary.title}", "",
          f"Made by `bench/summarise.py` from the samples in "
          f"[{name}.tsv]({name}.tsv) (do not edit by hand). What is measured "
          f"and how: [bench/README.md](../README.md#{summary.anchor}).", "",
          f"![{summary.title}]({name}.svg)", ""]
    for heading, text in summary.sections:
        md += [f"## {heading}", "", text]
    md += ["## Run", ""] + [f"- {key}: {value}"
                            for key, value in samples.facts]
    with open(os.path.join(results, name + ".md"), "w") as out:
        out.write("\n".join(md) + "\n")
    svg.write(os.path.join(results, name + ".svg"), summary.panels)
