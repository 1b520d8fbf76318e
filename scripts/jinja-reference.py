#!/usr/bin/env python3
"""The reference renderer of the Jinja chat-template tests: Jinja2 configured as Hugging Face
transformers runs chat templates (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loop
controls, raise_exception, strftime_now, a tojson that is json.dumps without ASCII escaping).

  jinja-reference.py TEMPLATE CONTEXT
      renders TEMPLATE (a file) over CONTEXT (a JSON file) and writes the text to stdout exactly
      (UTF-8, nothing added); on any error the message goes to stderr and the exit status is 3.
  jinja-reference.py --batch LIST
      LIST holds one "TEMPLATE<TAB>CONTEXT" pair a line; for each pair writes "OK <n>\\n" or
      "ERR <n>\\n" followed by n bytes (the text, or the error message). One process for a suite.

CONTEXT has the shape of the C API's inputs (llama_chat_template_inputs):
  {"messages": [...], "tools": [...] (optional: absent = undefined), "add_generation_prompt": bool,
   "bos_token": str, "eos_token": str, "extra": {...} (members become variables, override the
   others), "now": seconds since the epoch that strftime_now formats (UTC)}
As the C API does, an assistant message's tool_calls[].function.arguments given as a JSON string
is parsed into an object.
"""
import datetime
import json
import sys

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment


def make_env(now):
    """now: a list holding the seconds that strftime_now formats (set per render)"""
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=["jinja2.ext.loopcontrols"])

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def strftime_now(fmt):
        return datetime.datetime.fromtimestamp(now[0], tz=datetime.timezone.utc).strftime(fmt)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def variables(ctx):
    messages = ctx["messages"]
    for m in messages:
        if isinstance(m, dict) and m.get("role") == "assistant" and isinstance(m.get("tool_calls"), list):
            for tc in m["tool_calls"]:
                fn = tc.get("function") if isinstance(tc, dict) else None
                if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                    fn["arguments"] = json.loads(fn["arguments"])
    v = {"messages": messages,
         "add_generation_prompt": ctx.get("add_generation_prompt", False),
         "bos_token": ctx.get("bos_token", ""),
         "eos_token": ctx.get("eos_token", "")}
    if ctx.get("tools") is not None:
        v["tools"] = ctx["tools"]
    v.update(ctx.get("extra") or {})
    return v


NOW = [0]
ENV = make_env(NOW)
TEMPLATES = {}  # path -> compiled template (a batch renders each template over several contexts)


def render(template_path, context_path):
    with open(context_path, encoding="utf-8") as f:
        ctx = json.load(f)
    if template_path not in TEMPLATES:
        with open(template_path, encoding="utf-8", newline="") as f:
            TEMPLATES[template_path] = ENV.from_string(f.read())
    NOW[0] = ctx.get("now", 0)
    return TEMPLATES[template_path].render(**variables(ctx))


def main(argv):
    if len(argv) == 3 and argv[1] == "--batch":
        out = sys.stdout.buffer
        with open(argv[2], encoding="utf-8") as f:
            pairs = [line.rstrip("\n").split("\t") for line in f if line.strip()]
        for template_path, context_path in pairs:
            try:
                status, data = "OK", render(template_path, context_path).encode("utf-8", "surrogatepass")
            except Exception as e:  # any failure of the render is a result: "the case fails"
                status, data = "ERR", f"{type(e).__name__}: {e}".encode("utf-8", "replace")
            out.write(f"{status} {len(data)}\n".encode() + data)
        out.flush()
        return 0
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    try:
        text = render(argv[1], argv[2])
    except Exception as e:
        sys.stderr.write(f"{type(e).__name__}: {e}\n")
        return 3
    sys.stdout.buffer.write(text.encode("utf-8", "surrogatepass"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
