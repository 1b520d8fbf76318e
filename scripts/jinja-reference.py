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
The messages are normalised as the C API does (src/llama-chat-template.cpp): tool_calls[].function.
arguments given as a JSON string is parsed into an object (left as is if it is not JSON), and a
template that does not read typed content (a probe message whose content is one text part does not
come out as its text alone) sees every list of parts as its text parts joined with newlines, as
llama.cpp does. Like transformers (its AssistantTracker), {% generation %}...{% endgeneration %}
renders its body.
"""
import datetime
import json
import sys

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment


class Generation(Extension):
    """{% generation %}...{% endgeneration %}: transformers marks the assistant's tokens with it."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_render"), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def make_env(now):
    """now: a list holding the seconds that strftime_now formats (set per render)"""
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[Generation, "jinja2.ext.loopcontrols"])

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


PROBE = "lLaMa-PrObE-7f3a"


def reads_typed_content(template, ctx):
    """The C API's probe: does a text part come out as its text (not as a list's repr)?"""
    try:
        out = template.render(messages=[{"role": "user", "content": [{"type": "text", "text": PROBE}]}],
                              add_generation_prompt=False, bos_token=ctx.get("bos_token", ""),
                              eos_token=ctx.get("eos_token", ""))
    except Exception:
        return False
    return PROBE in out and "'type'" not in out


def variables(ctx, template=None):
    """The template's variables from a context; template: flatten content parts if it reads strings."""
    typed = template is None or reads_typed_content(template, ctx)
    messages = ctx["messages"]
    for m in messages:
        if isinstance(m.get("tool_calls"), list):
            for tc in m["tool_calls"]:
                fn = tc.get("function") if isinstance(tc, dict) else None
                if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                    try:
                        fn["arguments"] = json.loads(fn["arguments"])
                    except ValueError:
                        pass
        if not typed and isinstance(m.get("content"), list):
            m["content"] = "\n".join(p["text"] for p in m["content"] if isinstance(p, dict)
                                     and p.get("type") == "text" and isinstance(p.get("text"), str))
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
    template = TEMPLATES[template_path]
    return template.render(**variables(ctx, template))


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
