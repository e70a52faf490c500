"""Real-world validation: predictors scored on held-out sets that have had their look.

A held-out set is a test set once; after its look it is shipped models measured on the
reference hardware that nothing trained on, which is what a choice between predictors
should read. This pools the sets named (by default 4 to 8, the ones whose measurements
are saved under ``reports/realworld/setN/measured.jsonl``) and scores each predictor over
all their files together:

    python scripts/fetch_heldout.py --set 4   # and 5, 6, 7, 8
    python scripts/realworld_validation.py --predictor A --predictor B [--sets 4,5,6,7,8] \\
        [--ensemble] [--cache DIR] [--out FILE.md]

Printed: MAPE, median error, Acc(10 %), Acc(25 %) and the mean log ratio (predicted /
measured; negative is low) per predictor, and the MAPE difference of each predictor to the
first with a 95 % interval from resampling packages (files of one package move together);
then each predictor's MAPE on the files it flags as outside its training graphs
(``Prediction.outside_training``) and on the rest.
Nothing trains; never run it on a set still kept for a look.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np

from nnlat.predictor.ranges import reason_kind

from judge_heldout import add_judge_arguments, predictions  # isort: skip (scripts/ is on the path when run from it)

REPORTS = Path("reports/realworld")
RESAMPLES = 5000


def package_interval(
    errors_a: np.ndarray, errors_b: np.ndarray, packages: list[str]
) -> tuple[float, float, float]:
    """2.5, 50 and 97.5 % quantiles of mean(errors_a) - mean(errors_b), packages resampled.

    Example:
        >>> a, b = np.array([0.5, 0.5, 0.1]), np.array([0.1, 0.1, 0.1])
        >>> low, mid, high = package_interval(a, b, ["p", "p", "q"])
        >>> 0.0 <= low <= mid <= high <= 0.4
        True
    """
    rng = np.random.default_rng(0)
    names = sorted(set(packages))
    rows = {name: [i for i, p in enumerate(packages) if p == name] for name in names}
    differences = []
    for _ in range(RESAMPLES):
        chosen = [i for name in rng.choice(names, len(names)) for i in rows[name]]
        differences.append(errors_a[chosen].mean() - errors_b[chosen].mean())
    low, mid, high = np.percentile(differences, [2.5, 50, 97.5])
    return float(low), float(mid), float(high)


def split_rows(errors: dict[str, np.ndarray], marks: dict[str, np.ndarray]) -> list[str]:
    """One table row per predictor: files and MAPE where ``marks[label]`` holds, then where not.

    Example:
        >>> split_rows({"p": np.array([0.5, 0.1])}, {"p": np.array([True, False])})
        ['| `p` | 1 | 50.0% | 1 | 10.0% |']
    """
    rows = []
    for label, error in errors.items():
        cells = [
            f"{int(part.sum())} | {error[part].mean():.1%}" if part.any() else "0 | –"
            for part in (marks[label], ~marks[label])
        ]
        rows.append(f"| `{label}` | " + " | ".join(cells) + " |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="4,5,6,7,8", help="held-out sets that had their look")
    add_judge_arguments(parser)
    args = parser.parse_args()

    truth, packages, columns, flagged = [], [], {}, {}
    by_data: list[bool] = []  # files with operators whose work the input values decide
    why: Counter[str] = Counter()  # the first predictor's reasons for its flags
    for heldout_set in (int(s) for s in args.sets.split(",")):
        path = REPORTS / f"set{heldout_set}" / "measured.jsonl"
        measured = [json.loads(line) for line in path.read_text().splitlines() if line]
        ok, measured_ms, answers, outside, data_dependent = predictions(
            measured, args.cache, heldout_set, args.predictor, args.ensemble
        )
        truth.append(measured_ms)
        by_data += [bool(ops) for ops in data_dependent]
        # "<package>@<version>:<file>"; an npm package may be scoped ("@scope/name@1.0:f")
        packages += [m["name"].split(":")[0].rpartition("@")[0] for m in ok]
        for label, values in answers.items():
            columns.setdefault(label, []).append(values)
            # the ensemble's flags: its first member's (one recipe, one training set)
            said = outside.get(label, next(iter(outside.values())))
            flagged.setdefault(label, []).extend(bool(o) for o in said)
        first_said = next(iter(outside.values()))
        why.update(reason_kind(reason) for reasons in first_said for reason in reasons)
    measured_ms = np.concatenate(truth)
    answers = {label: np.concatenate(parts) for label, parts in columns.items()}
    errors = {label: np.abs(v / measured_ms - 1) for label, v in answers.items()}

    first = next(iter(errors))
    lines = [
        f"{len(measured_ms)} files of sets {args.sets} ({len(set(packages))} packages), "
        "measured on the reference hardware.",
        "",
        "| predictor | MAPE | median error | Acc(10 %) | Acc(25 %) | mean log ratio | "
        "MAPE − first's (95 % interval, packages resampled) |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, error in errors.items():
        low, mid, high = package_interval(error, errors[first], packages)
        difference = "–" if label == first else f"{mid:+.1%} ({low:+.1%} … {high:+.1%})"
        lines.append(
            f"| `{label}` | {error.mean():.1%} | {np.median(error):.1%} | "
            f"{(error <= 0.1).mean():.0%} | {(error <= 0.25).mean():.0%} | "
            f"{np.mean(np.log(answers[label] / measured_ms)):+.3f} | {difference} |"
        )
    lines += [
        "",
        "Files the predictor says lie outside its training graphs (`outside_training`: "
        "operators, FLOPs, parameters, bytes or batch beyond their ranges), against the rest:",
        "",
        "| predictor | outside: files | MAPE | inside: files | MAPE |",
        "|---|---|---|---|---|",
    ]
    lines += split_rows(errors, {label: np.array(flagged[label]) for label in errors})
    reasons = ", ".join(f"{reason} {count}" for reason, count in why.most_common())
    lines += ["", f"Why the first predictor flags them (a file may have several): {reasons}."]
    lines += [
        "",
        "Files with operators whose work the input values decide (`data_dependent`: `Loop`, "
        "`If`, `NonZero`, `NonMaxSuppression`, `Unique`, `Compress`), against the rest:",
        "",
        "| predictor | data-dependent: files | MAPE | the rest: files | MAPE |",
        "|---|---|---|---|---|",
    ]
    lines += split_rows(errors, dict.fromkeys(errors, np.array(by_data)))
    print("\n".join(lines))
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
