#!/usr/bin/env python3
"""Figures of one Curator run from surefire's XML reports: python3 summarise.py target/surefire-reports-zkr

Prints passed / failed / skipped / flaky (passed on a rerun) over all test methods, then each test that did not
pass first time with the first line of its failure."""
import glob
import sys
import xml.etree.ElementTree as ET

reports = sys.argv[1] if len(sys.argv) > 1 else "target/surefire-reports-zkr"
total = passed = failed = skipped = flaky = 0
seconds = 0.0
notes = []
for f in sorted(glob.glob(reports + "/TEST-*.xml")):
    suite = ET.parse(f).getroot()
    seconds += float(suite.get("time", "0") or 0)
    for case in suite.iter("testcase"):
        total += 1
        name = case.get("classname", "").rsplit(".", 1)[-1] + "." + case.get("name", "")
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        if case.find("skipped") is not None:
            skipped += 1
        elif bad is not None:
            failed += 1
            msg = (bad.get("message") or bad.get("type") or "").strip().splitlines()
            notes.append(("FAILED", name, msg[0][:200] if msg else bad.get("type", "")))
        else:
            passed += 1
            flakes = case.findall("flakyFailure") + case.findall("flakyError")
            if flakes:
                flaky += 1
                msg = (flakes[0].get("message") or flakes[0].get("type") or "").strip().splitlines()
                notes.append(("FLAKY", name, msg[0][:200] if msg else flakes[0].get("type", "")))
print(f"{reports}: {total} tests: {passed} passed ({flaky} of them on a rerun), {failed} failed, "
      f"{skipped} skipped; {seconds / 60:.1f} min in test classes")
for kind, name, msg in notes:
    print(f"  {kind:6} {name}: {msg}")
