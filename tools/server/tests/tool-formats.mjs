// Tool calls in every output family llama-server parses (tools/common/chat-format.h), through the
// official `openai` client: one server per family on a synthetic random-weight model
// (tests/data/models/synthetic) with that family's template (tests/data/chat/<family>.jinja,
// written for the tests in the family's syntax). Random weights write nothing meaningful: the
// tool-call grammar alone gives the output its structure, so every check is about what the server
// makes of it. Per family: tool_choice required gives finish_reason tool_calls and calls whose names
// are tools' and whose arguments parse and satisfy the tool's schema (checked by the validator
// below); a named tool; parallel_tool_calls false gives exactly one call; streamed deltas add up to
// the non-streamed calls (greedy); auto gives content or well-formed calls; a history with calls and
// tool results renders. Starts its own servers (SERVER and DATA from run-server-test.sh), a few at
// once.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { check, done } from './common.mjs';

const require = createRequire(process.env.NODE_PATH + '/');
const OpenAI = require('openai');
const { SERVER, DATA } = process.env;

// family (tests/data/chat/<family>.jinja) → a synthetic model whose vocabulary suits it
const FAMILIES = [
    ['hermes', 'qwen3-micro'],
    ['qwen3-coder', 'qwen3-micro'],
    ['llama3-json', 'llama-micro'],
    ['mistral', 'llama-micro'],
    ['gpt-oss', 'gpt-oss-micro'],
    ['deepseek-r1', 'qwen2-micro'],
    ['deepseek-v3.1', 'qwen2-micro'],
    ['granite', 'qwen3-micro'],
    ['command-r7b', 'qwen3-micro'],
    ['firefunction-v2', 'llama-micro'],
    ['functionary-v3.2', 'llama-micro'],
    ['functionary-v3.1-llama3.1', 'llama-micro'],
    ['glm-4.5', 'qwen3-micro'],
];
const AT_ONCE = 3;

// bounded values, so that even random weights end a call within max_tokens
const tools = [
    { type: 'function', function: { name: 'get_weather', description: 'Weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 6 },
                                                    days: { type: 'integer', minimum: 1, maximum: 7 } },
                      required: ['city', 'days'], additionalProperties: false } } },
    { type: 'function', function: { name: 'get_time', description: 'Time in a zone',
        parameters: { type: 'object', properties: { zone: { enum: ['utc', 'cet', 'jst'] } }, required: ['zone'],
                      additionalProperties: false } } },
];
const msgs = [{ role: 'system', content: 'You help.' }, { role: 'user', content: 'Weather in Paris?' }];

// The JSON-schema subset the tools above use; returns the first violation, or '' when valid.
function violation(schema, v, at = '$') {
    if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
        return `${at}: ${JSON.stringify(v)} not in the enum`;
    }
    switch (schema.type) {
    case 'object': {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) return `${at}: not an object`;
        for (const k of schema.required ?? []) {
            if (!(k in v)) return `${at}: '${k}' is missing`;
        }
        for (const [k, val] of Object.entries(v)) {
            const sub = schema.properties?.[k];
            if (!sub) {
                if (schema.additionalProperties === false) return `${at}: '${k}' is not a property`;
                continue;
            }
            const bad = violation(sub, val, `${at}.${k}`);
            if (bad) return bad;
        }
        return '';
    }
    case 'string': {
        if (typeof v !== 'string') return `${at}: not a string`;
        const n = [...v].length;  // code points, as JSON schema counts
        if (schema.maxLength !== undefined && n > schema.maxLength) return `${at}: longer than ${schema.maxLength}`;
        if (schema.minLength !== undefined && n < schema.minLength) return `${at}: shorter than ${schema.minLength}`;
        return '';
    }
    case 'integer':
        if (!Number.isInteger(v)) return `${at}: not an integer`;
        if (schema.minimum !== undefined && v < schema.minimum) return `${at}: below ${schema.minimum}`;
        if (schema.maximum !== undefined && v > schema.maximum) return `${at}: above ${schema.maximum}`;
        return '';
    case undefined:
        return '';
    default:
        return `${at}: the validator does not know type ${schema.type}`;
    }
}

// '' when the call names a tool and its arguments parse and satisfy that tool's schema
function callProblem(c) {
    const tool = tools.find((t) => t.function.name === c.function?.name);
    if (!tool) return `unknown tool ${c.function?.name}`;
    if (c.type !== 'function' || typeof c.id !== 'string' || c.id.length === 0) return 'no type or id';
    let args;
    try {
        args = JSON.parse(c.function.arguments);
    } catch {
        return `arguments do not parse: ${c.function.arguments}`;
    }
    return violation(tool.function.parameters, args);
}

function start(family, model) {
    const args = ['-m', `${DATA}/models/synthetic/${model}-f16.gguf`, '--port', '0', '-np', '1', '-c', '2048', '-t', '1',
                  '--chat-template-file', `${DATA}/chat/${family}.jinja`];
    const child = spawn(SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            child.kill('SIGKILL');  // not left running after the test
            reject(new Error(`${family}: no start: ${out}`));
        }, 60000);
        const onData = (d) => {
            out += d;
            const m = out.match(/listening on http:\/\/[^:]*:(\d+)/);
            if (m) {
                clearTimeout(timer);
                resolve({ child, port: Number(m[1]), log: () => out });
            }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', (code) => reject(new Error(`${family}: exited ${code}: ${out}`)));
    });
}

function stop(srv) {
    return new Promise((resolve) => {
        srv.child.removeAllListeners('exit');
        srv.child.on('exit', (code) => resolve(code));
        srv.child.kill('SIGTERM');
    });
}

async function family(name, model) {
    const srv = await start(name, model);
    const client = new OpenAI({ baseURL: `http://127.0.0.1:${srv.port}/v1`, apiKey: 'unused', maxRetries: 0,
                                timeout: 60000 });
    const base = { model: 'x', messages: msgs, tools, temperature: 0, max_tokens: 256 };
    const lines = [];
    const ok = (cond, what, detail = '') => lines.push([cond, `${name}: ${what}`, detail]);
    try {
        // required, one call
        const one = await client.chat.completions.create({ ...base, tool_choice: 'required', parallel_tool_calls: false });
        const calls = one.choices[0].message.tool_calls ?? [];
        ok(one.choices[0].finish_reason === 'tool_calls' && calls.length === 1,
           'required + parallel_tool_calls false: finish_reason tool_calls, exactly one call', JSON.stringify(one.choices[0]));
        for (const c of calls) {
            const p = callProblem(c);
            ok(p === '', `required: a valid call to ${c.function.name}`, p + ' ' + c.function.arguments);
        }

        // the same, streamed: the deltas add up to the same calls
        const stream = await client.chat.completions.create({ ...base, tool_choice: 'required',
                                                              parallel_tool_calls: false, stream: true });
        const acc = [];
        let finish = null;
        for await (const chunk of stream) {
            const ch = chunk.choices[0];
            if (!ch) continue;
            for (const d of ch.delta?.tool_calls ?? []) {
                acc[d.index] ??= { name: '', arguments: '' };
                acc[d.index].name += d.function?.name ?? '';
                acc[d.index].arguments += d.function?.arguments ?? '';
            }
            finish = ch.finish_reason ?? finish;
        }
        ok(finish === 'tool_calls' && acc.length === calls.length &&
           acc.every((a, i) => a.name === calls[i].function.name && a.arguments === calls[i].function.arguments),
           'streamed deltas add up to the same calls', JSON.stringify([acc, calls.map((c) => c.function)]));

        // a named tool
        const named = await client.chat.completions.create({ ...base, parallel_tool_calls: false,
            tool_choice: { type: 'function', function: { name: 'get_time' } } });
        const nc = named.choices[0].message.tool_calls ?? [];
        ok(named.choices[0].finish_reason === 'tool_calls' && nc.length === 1 && nc[0].function.name === 'get_time' &&
           callProblem(nc[0]) === '', 'named tool_choice: one valid call to that tool', JSON.stringify(named.choices[0]));

        // required with parallel calls allowed: random weights rarely stop calling, so the reply
        // may end at max_tokens (finish_reason length); whatever calls it returns are valid
        const par = await client.chat.completions.create({ ...base, tool_choice: 'required', max_tokens: 96 });
        const pc = par.choices[0].message.tool_calls ?? [];
        const pf = par.choices[0].finish_reason;
        ok(((pf === 'tool_calls' && pc.length >= 1) || pf === 'length') && pc.every((c) => callProblem(c) === ''),
           'required, parallel allowed: valid calls (or cut at max_tokens)', JSON.stringify(par.choices[0]));
        // auto: the model may write text or calls; whichever it is comes back well-formed
        const auto = await client.chat.completions.create({ ...base, max_tokens: 16 });
        const am = auto.choices[0].message;
        ok((am.tool_calls ?? []).every((c) => callProblem(c) === '') &&
           (am.tool_calls?.length > 0 ? auto.choices[0].finish_reason === 'tool_calls' : typeof am.content === 'string'),
           'auto: content or well-formed calls', JSON.stringify(auto.choices[0]));

        // a history with calls and their results renders
        const history = [...msgs,
            { role: 'assistant', content: null, tool_calls: [
                { id: 'call1AbcD', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris", "days": 2}' } },
                { id: 'call2XyzW', type: 'function', function: { name: 'get_time', arguments: '{"zone": "cet"}' } }] },
            { role: 'tool', tool_call_id: 'call1AbcD', content: '21 C' },
            { role: 'tool', tool_call_id: 'call2XyzW', content: '10:00' }];
        const h = await client.chat.completions.create({ ...base, messages: history, max_tokens: 8 });
        ok(['length', 'stop', 'tool_calls'].includes(h.choices[0].finish_reason), 'a history with calls and results renders',
           JSON.stringify(h.choices[0]));
    } catch (e) {
        ok(false, 'requests', String(e));
    }
    const code = await stop(srv);
    ok(code === 0, 'the server exits 0 on SIGTERM', `exit ${code}`);
    if (lines.some((l) => !l[0])) {
        lines.push([true, `${name}: server log`, '\n' + srv.log().split('\n').slice(-15).join('\n')]);
    }
    return lines;
}

// a few servers at once (each the next family as one finishes); the checks print in the table's order
const results = new Array(FAMILIES.length);
let next = 0;
async function worker() {
    while (next < FAMILIES.length) {
        const i = next++;
        const [f, m] = FAMILIES[i];
        results[i] = await family(f, m).catch((e) => [[false, `${f}: start`, String(e)]]);
    }
}
await Promise.all(Array.from({ length: AT_ONCE }, worker));
for (const lines of results) {
    for (const [cond, what, detail] of lines) {
        if (what.endsWith('server log')) console.log(detail);
        else check(cond, what, detail);
    }
}
done();
