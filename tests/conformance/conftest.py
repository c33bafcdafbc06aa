"""Prints the breadth corpus's per-feature counts after the run."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter):
    import sys

    module = sys.modules.get("test_breadth_conformance")
    if module is None or not module.OUTCOMES:
        return
    from conformance_runner import feature_counts

    cases = [c for c in module.CASES if c["id"] in module.OUTCOMES]
    outcomes = [module.OUTCOMES[c["id"]] for c in cases]
    terminalreporter.section("breadth corpus (real Drill 1.22's answers)")
    for feature, (ok, bad) in feature_counts(cases, outcomes).items():
        terminalreporter.write_line(f"  {feature:18} {ok:3} of {ok + bad:3} match Drill")
    passed = sum(o.passed for o in outcomes)
    terminalreporter.write_line(f"  {'all':18} {passed:3} of {len(outcomes):3} match Drill")
