#!/usr/bin/env python3
"""Writes the seeds of fuzz-jinja (tests/fuzz/seeds-jinja/) from the conformance corpus: for each
template of tests/data/jinja/cases.txt, its first context, as the harness reads them: the template
source, a NUL byte, then the JSON object of the template's variables (what the C API builds from
its inputs: messages with parsed tool-call arguments, tools, add_generation_prompt, bos_token,
eos_token and the extra members).   usage: tests/fuzz/make-seeds-jinja.py"""
import importlib.util
import json
import os

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location("ref", os.path.join(root, "scripts", "jinja-reference.py"))
ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref)

data = os.path.join(root, "tests", "data", "jinja")
out = os.path.join(root, "tests", "fuzz", "seeds-jinja")
os.makedirs(out, exist_ok=True)
seen = set()
with open(os.path.join(data, "cases.txt"), encoding="utf-8") as f:
    for line in f:
        words = line.split()
        if len(words) < 3 or words[0].startswith("#") or words[1] in seen:
            continue
        seen.add(words[1])
        with open(os.path.join(data, "templates", words[1]), "rb") as t:
            source = t.read()
        with open(os.path.join(data, "contexts", words[2]), encoding="utf-8") as c:
            ctx = json.dumps(ref.variables(json.load(c)), ensure_ascii=False)
        name = os.path.splitext(words[1])[0]
        with open(os.path.join(out, name), "wb") as s:
            s.write(source + b"\0" + ctx.encode("utf-8"))
print(f"{len(seen)} seeds in {out}")
