"""A benchmark's samples file (bench/README.md, "Samples"): '#' lines are the
run's facts ("# key: value"), then a header line and one row per sample,
whose last three columns are round, metric and value."""


class Samples:
    def __init__(self, path):
        self.facts = []  # (key, value), in file order
        self.rows = []   # dicts by column; "value" is a float
        header = None
        with open(path) as lines:
            for line in lines:
                line = line.rstrip("\n")
                if line.startswith("#"):
                    key, _, value = line[1:].strip().partition(": ")
                    self.facts.append((key, value))
                elif line and header is None:
                    header = line.split("\t")
                elif line:
                    row = dict(zip(header, line.split("\t")))
                    row["value"] = float(row["value"])
                    self.rows.append(row)

    def where(self, **match):
        return [r for r in self.rows
                if all(r.get(k) == v for k, v in match.items())]

    def values(self, **match):
        return [r["value"] for r in self.where(**match)]

    def distinct(self, *columns, **match):
        """The values (tuples for several columns) in order of appearance."""
        seen = {}
        for r in self.where(**match):
            seen.setdefault(tuple(r.get(c) for c in columns), None)
        return [k[0] if len(columns) == 1 else k for k in seen]

    def per_rank(self, prefix, **match):
        """Each rank's sum of the per-rank values whose metric starts with
        `prefix` (they come in rank order), e.g. "sent_bytes:"."""
        sums = []
        for metric in self.distinct("metric", round="-", **match):
            if metric.startswith(prefix):
                values = self.values(metric=metric, round="-", **match)
                sums = [a + b for a, b in zip(sums or [0] * len(values),
                                              values)]
        return sums
