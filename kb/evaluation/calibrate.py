"""Calibrate the "likely" tier's threshold on data it may be tuned on.

`python -m kb.evaluation.calibrate [--guides DIR]` prints, per threshold, how often the
tier names the right guide (precision) and how often it names one at all where it should
(recall), on three kinds of probes built from the guides' own raw errors, each scored
without the reference it came from (leave one out):

- whole: a raw error's matched line, compared with the guide's other raw errors and
  signatures (another report, often another version's wording);
- cut: the same line cut at 70 % and 45 % of its length, as issue excerpts cut it;
- title: its first words up to about half, as an issue title holds it;
- foreign: the same lines with every reference of their own guide left out, so that the
  right answer is "nothing": any guide named is a false answer (another error of the
  same exception type, most often).

A specific guide's line without its context (the SM120 wheel guide's bare "no kernel
image is available") belongs to the generic guide; an answer the matcher itself gives
with confidence "match" for the probe's text counts as right.

`--cases` adds the same table on labelled reports: the dev set and the tuned parts of the traffic set
and of the wide sample (kb/evaluation/calibrate_cases.py). The held-out sets are not used here: their
precision is reported by `kb eval`.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from kb.engine.index import Index, load_index
from kb.engine.likely import Ref, find_likely
from kb.engine.roots import RootError
from kb.guides.load import GUIDES_DIR

THRESHOLDS = tuple(range(70, 101, 2))


@dataclass(frozen=True)
class Probe:
    guide: str
    text: str
    kind: str  # whole, cut, title, foreign
    ref: Ref


def _root(text: str) -> RootError:
    return RootError(0, 1, text, None, text, (), 0, 1, False)


def probes(index: Index) -> list[Probe]:
    out = []
    for gid, refs in index.refs.items():
        for ref in refs:
            if ref.kind != "raw":
                continue
            line = ref.text
            out.append(Probe(gid, line, "whole", ref))
            for share in (0.7, 0.45):
                out.append(Probe(gid, line[: int(len(line) * share)], "cut", ref))
            words = line.split()
            out.append(Probe(gid, " ".join(words[: max(3, len(words) // 2)]), "title", ref))
            out.append(Probe(gid, line, "foreign", ref))
    return out


def _answer(index: Index, p: Probe, threshold: float) -> str | None:
    if p.kind == "foreign":
        saved = index.refs[p.guide]
        index.refs[p.guide] = ()
        try:
            hit = find_likely(index, _root(p.text), exclude=frozenset({p.guide}), threshold=threshold)
        finally:
            index.refs[p.guide] = saved
    else:
        hit = find_likely(index, _root(p.text), leave_out=(p.guide, p.ref.key), threshold=threshold)
    return hit.guide if hit else None


def _also_right(index: Index, p: Probe) -> set[str]:
    from kb.engine.match import match
    answer = match(index, p.text, likely=False).answer
    return {answer.guide_id} if answer is not None and answer.guide_id != p.guide else set()


def table(index: Index, thresholds=THRESHOLDS) -> list[dict]:
    ps = probes(index)
    siblings = {id(p): _also_right(index, p) for p in ps}
    rows = []
    for t in thresholds:
        right = wrong = positives = named = 0
        by_kind: dict[str, list[int]] = {}
        for p in ps:
            got = _answer(index, p, t)
            k = by_kind.setdefault(p.kind, [0, 0, 0])  # answered right, answered wrong, probes
            k[2] += 1
            if p.kind == "foreign":
                bad = got is not None and got not in siblings[id(p)]
                wrong += bad
                k[1] += bad
                continue
            positives += 1
            if got is not None:
                named += 1
                ok = got == p.guide or got in siblings[id(p)]
                right += ok
                wrong += not ok
                k[0] += ok
                k[1] += not ok
        rows.append({"threshold": t, "precision": right / (right + wrong) if right + wrong else None,
                     "recall": right / positives if positives else None, "answers": right + wrong,
                     "by_kind": {k: {"right": v[0], "wrong": v[1], "probes": v[2]} for k, v in by_kind.items()}})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kb.evaluation.calibrate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--guides", metavar="DIR", default=None)
    ap.add_argument("--cases", action="store_true",
                    help="also the labelled reports it may be tuned on (kb/evaluation/calibrate_cases.py)")
    args = ap.parse_args(argv)
    index = load_index(args.guides or GUIDES_DIR)
    print(f"{'threshold':>9} {'precision':>10} {'recall':>7} {'answers':>8}   right/wrong by probe kind")
    for r in table(index):
        kinds = "  ".join(f"{k} {v['right']}/{v['wrong']} of {v['probes']}" for k, v in r["by_kind"].items())
        prec = "n/a" if r["precision"] is None else f"{100 * r['precision']:.1f}%"
        print(f"{r['threshold']:>9} {prec:>10} {100 * (r['recall'] or 0):6.1f}% {r['answers']:>8}   {kinds}")
    if args.cases:
        from kb.evaluation.calibrate_cases import cases_table, format_rows, tuned_cases
        cases = tuned_cases()
        print()
        print(format_rows(cases_table(index, THRESHOLDS), len(cases)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
