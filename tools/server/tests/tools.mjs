// Tool calls through the official OpenAI client, with the server running a Hermes-style Jinja
// template (tests/data/chat/hermes-tools.jinja) on stories260K: tool_choice required / named force a
// call through the tool-call grammar, the call comes back in message.tool_calls (and as streamed
// deltas that add up to the same call), auto leaves the story text as content, and bad requests are
// 400s that name the problem.
import { createRequire } from 'node:module';
import { check, done } from './common.mjs';

const require = createRequire(process.env.NODE_PATH + '/');
const OpenAI = require('openai');
const base = 'http://127.0.0.1:' + process.env.PORT + '/v1';
const client = new OpenAI({ baseURL: base, apiKey: 'unused', maxRetries: 0, timeout: 60000 });

// bounded, so that even a tiny model ends the call within max_tokens
const tools = [
    { type: 'function', function: { name: 'get_weather', description: 'Weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string', minLength: 1, maxLength: 8 },
                                                    days: { type: 'integer', minimum: 1, maximum: 7 } },
                      required: ['city'], additionalProperties: false } } },
    { type: 'function', function: { name: 'get_time', description: 'Time in a zone',
        parameters: { type: 'object', properties: { zone: { enum: ['utc', 'cet'] } }, required: ['zone'],
                      additionalProperties: false } } },
];
const msgs = [{ role: 'system', content: 'You help.' }, { role: 'user', content: 'Weather in Paris?' }];
const parse = (s) => { try { return JSON.parse(s); } catch { return undefined; } };

// required: the answer is a call to one of the tools, with arguments valid under its schema
const req = await client.chat.completions.create({ model: 'x', messages: msgs, tools, tool_choice: 'required',
                                                   parallel_tool_calls: false, temperature: 0, max_tokens: 300 });
const rc = req.choices[0];
const calls = rc.message.tool_calls ?? [];
check(rc.finish_reason === 'tool_calls' && calls.length === 1, 'required: finish_reason tool_calls with one call',
      JSON.stringify(rc));
for (const c of calls) {
    const a = parse(c.function.arguments);
    const ok = (c.function.name === 'get_weather' && typeof a?.city === 'string' && a.city.length >= 1 &&
                a.city.length <= 8 && (a.days === undefined || (Number.isInteger(a.days) && a.days >= 1 && a.days <= 7))) ||
               (c.function.name === 'get_time' && ['utc', 'cet'].includes(a?.zone));
    check(ok && c.type === 'function' && typeof c.id === 'string' && c.id.length > 0,
          'required: a valid call ' + c.function.name, c.function.arguments);
}

// the same request streamed: the deltas add up to the same calls
const stream = await client.chat.completions.create({ model: 'x', messages: msgs, tools, tool_choice: 'required',
                                                      parallel_tool_calls: false, temperature: 0, max_tokens: 300,
                                                      stream: true });
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
check(finish === 'tool_calls' && acc.length === calls.length &&
      acc.every((a, i) => a.name === calls[i].function.name && a.arguments === calls[i].function.arguments),
      'streamed deltas add up to the same calls', JSON.stringify(acc));

// parallel calls allowed: the grammar lets the model go on calling (here until max_tokens)
const par = await client.chat.completions.create({ model: 'x', messages: msgs, tools, tool_choice: 'required',
                                                   temperature: 0, max_tokens: 120 });
check((par.choices[0].message.tool_calls ?? []).length >= 1, 'parallel: one or more calls',
      JSON.stringify(par.choices[0].message));

// a named tool
const named = await client.chat.completions.create({ model: 'x', messages: msgs, tools, temperature: 0,
    max_tokens: 300, parallel_tool_calls: false, tool_choice: { type: 'function', function: { name: 'get_time' } } });
const nc = named.choices[0].message.tool_calls ?? [];
check(nc.length === 1 && nc.every((c) => c.function.name === 'get_time'), 'named tool_choice calls that tool',
      JSON.stringify(named.choices[0].message));

// auto: the lazy grammar stays off unless the model opens a call; stories260K tells a story
const auto = await client.chat.completions.create({ model: 'x', messages: msgs, tools, temperature: 0,
                                                    max_tokens: 24 });
check(typeof auto.choices[0].message.content === 'string' && auto.choices[0].message.content.length > 0 &&
      !auto.choices[0].message.tool_calls, 'auto: plain text stays content', JSON.stringify(auto.choices[0]));

// a conversation with a call and its result renders (arguments given as a JSON string)
const history = [...msgs,
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function',
      function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: '21 C' }];
const h = await client.chat.completions.create({ model: 'x', messages: history, tools, temperature: 0, max_tokens: 8 });
check(h.choices[0].finish_reason === 'length' || h.choices[0].finish_reason === 'stop', 'history with a tool result');

// 400s
const status = async (body) => {
    const r = await fetch(base + '/chat/completions', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                                        body: JSON.stringify(body) });
    return [r.status, await r.text()];
};
let [s, t] = await status({ messages: msgs, tools, tool_choice: { type: 'function', function: { name: 'nope' } } });
check(s === 400 && t.includes('nope'), 'unknown tool name: 400 naming it', t);
[s, t] = await status({ messages: msgs, tools, tool_choice: 'sometimes' });
check(s === 400 && t.includes('tool_choice'), 'bad tool_choice: 400', t);
[s, t] = await status({ messages: msgs, tools: [{ type: 'function' }] });
check(s === 400 && t.includes('tool'), 'malformed tool: 400', t);
[s, t] = await status({ messages: msgs, tools, tool_choice: 'required', response_format: { type: 'json_object' } });
check(s === 400 && t.includes('not both'), 'tools with response_format: 400', t);
done();
