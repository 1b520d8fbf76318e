// Anthropic's Messages API (/v1/messages) with a plain HTTP client, as Anthropic's SDKs send it
// (x-api-key, the server runs with --api-key secret and a Hermes-style tool template): a message
// equals the chat completion of the same conversation; the event stream has Anthropic's order and
// adds up to the same text; tools with tool_choice any give a tool_use block (streamed as
// input_json_delta); tool results in the history; count_tokens; errors in Anthropic's shape.
import { BASE, check, done } from './common.mjs';

const KEY = { 'x-api-key': 'secret', 'anthropic-version': '2023-06-01' };
async function call(path, body, headers = KEY) {
    const res = await fetch(BASE + path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers },
                                           body: typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    let json = null;
    try {
        json = JSON.parse(text);
    } catch {}
    return { status: res.status, text, json, type: res.headers.get('content-type') };
}
function events(text) {
    return text.split('\n\n').filter((b) => b.trim()).map((b) => {
        const ev = b.match(/^event: (\S+)$/m)?.[1];
        const data = JSON.parse(b.match(/^data: (.*)$/m)?.[1] ?? 'null');
        return { ev, data };
    });
}

const convo = { system: 'You tell stories.', messages: [{ role: 'user', content: 'Tell me about a cat' }] };
const m = await call('/v1/messages', { model: 'any', max_tokens: 24, temperature: 0, ...convo });
check(m.status === 200 && m.json.type === 'message' && m.json.role === 'assistant' && m.json.id.startsWith('msg_'),
      'a message', m.text.slice(0, 300));
check(m.json.content.length === 1 && m.json.content[0].type === 'text' && m.json.stop_reason === 'max_tokens' &&
      m.json.usage.output_tokens === 24 && m.json.usage.input_tokens > 0, 'one text block, max_tokens, usage');
const oa = await call('/v1/chat/completions', { max_tokens: 24, temperature: 0,
                                                messages: [{ role: 'system', content: convo.system }, ...convo.messages] },
                      { Authorization: 'Bearer secret' });
check(oa.json.choices[0].message.content === m.json.content[0].text &&
      oa.json.usage.prompt_tokens === m.json.usage.input_tokens, 'equal to the chat completion of the same conversation');

// streamed
const s = await call('/v1/messages', { model: 'any', max_tokens: 24, temperature: 0, stream: true, ...convo });
const ev = events(s.text);
const names = ev.map((e) => e.ev);
check(s.status === 200 && /text\/event-stream/.test(s.type), 'stream: text/event-stream');
check(names[0] === 'message_start' && names[1] === 'content_block_start' && names.at(-3) === 'content_block_stop' &&
      names.at(-2) === 'message_delta' && names.at(-1) === 'message_stop' &&
      names.slice(2, -3).every((n) => n === 'content_block_delta'), "stream: Anthropic's event order", names.join(','));
check(ev.every((e) => e.data?.type === e.ev), 'stream: each data.type names its event');
const streamed = ev.filter((e) => e.ev === 'content_block_delta').map((e) => e.data.delta.text).join('');
check(streamed === m.json.content[0].text, 'stream: the deltas add up to the message', streamed);
const md = ev.find((e) => e.ev === 'message_delta').data;
check(md.delta.stop_reason === 'max_tokens' && md.usage.output_tokens === 24, 'stream: message_delta has stop and usage');

// stop_sequences: the reply ends before the first one reached; stop_reason says which
const full = m.json.content[0].text;
const word = full.split(/\s+/).filter((w) => w.length >= 3)[1];
const cut = full.slice(0, full.indexOf(word));
const st = await call('/v1/messages', { model: 'any', max_tokens: 24, temperature: 0, stop_sequences: ['@@none@@', word],
                                        ...convo });
check(st.json.stop_reason === 'stop_sequence' && st.json.stop_sequence === word &&
      (st.json.content[0]?.text ?? '').trim() === cut.trim(), 'stop_sequences: stop_reason stop_sequence, the text before it',
      `${word}: ${st.text.slice(0, 300)}`);
const sts = events((await call('/v1/messages', { model: 'any', max_tokens: 24, temperature: 0, stream: true,
                                                 stop_sequences: [word], ...convo })).text);
const smd = sts.find((e) => e.ev === 'message_delta').data;
check(smd.delta.stop_reason === 'stop_sequence' && smd.delta.stop_sequence === word, 'streamed: the same stop');

// tools: tool_choice any forces a call of the tool, with input matching its schema
const tools = [{ name: 'get_weather', description: 'Weather in a city',
                 input_schema: { type: 'object', properties: { city: { type: 'string', maxLength: 20 } },
                                 required: ['city'] } }];
const t = await call('/v1/messages', { model: 'any', max_tokens: 256, temperature: 0, tools,
                                       tool_choice: { type: 'any', disable_parallel_tool_use: true }, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
const use = t.json?.content?.find((b) => b.type === 'tool_use');
check(t.status === 200 && use && use.name === 'get_weather' && typeof use.input.city === 'string' &&
      typeof use.id === 'string' && use.id.length > 0 && t.json.stop_reason === 'tool_use',
      'tool_choice any: a tool_use block, stop_reason tool_use', t.text.slice(0, 400));
const ts = await call('/v1/messages', { model: 'any', max_tokens: 256, temperature: 0, tools, stream: true,
                                        tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
                                        messages: [{ role: 'user', content: 'Weather in Paris?' }] });
const tev = events(ts.text);
const start = tev.find((e) => e.ev === 'content_block_start' && e.data.content_block.type === 'tool_use');
const partial = tev.filter((e) => e.ev === 'content_block_delta' && e.data.delta.type === 'input_json_delta')
                   .map((e) => e.data.delta.partial_json).join('');
check(start && start.data.content_block.name === 'get_weather' && JSON.stringify(JSON.parse(partial)) === JSON.stringify(use.input) &&
      tev.find((e) => e.ev === 'message_delta').data.delta.stop_reason === 'tool_use',
      'streamed tool_use: input_json_delta adds up to the same input', partial);

// a history with the call and its result renders, and the model answers in text
const h = await call('/v1/messages', { model: 'any', max_tokens: 16, temperature: 0, tools, messages: [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }, use] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: [{ type: 'text', text: 'Sunny, 21 C' }] },
                              { type: 'text', text: 'Thanks!' }] }] });
check(h.status === 200 && h.json.content.length >= 0 && h.json.usage.input_tokens > t.json.usage.input_tokens,
      'tool_use and tool_result in the history', h.text.slice(0, 300));

// count_tokens: the same prompt as the message
const c = await call('/v1/messages/count_tokens', { model: 'any', ...convo });
check(c.status === 200 && c.json.input_tokens === m.json.usage.input_tokens, 'count_tokens = the message\'s input_tokens',
      c.text);

// errors, in Anthropic's shape; the server keeps serving
const bad = [
    [{ model: 'any', messages: convo.messages }, /max_tokens/],
    [{ model: 'any', max_tokens: 8, messages: [] }, /messages/],
    [{ model: 'any', max_tokens: 8, messages: [{ role: 'system', content: 'x' }] }, /role/],
    [{ model: 'any', max_tokens: 8, messages: [{ role: 'user', content: [{ type: 'image', source: {} }] }] }, /image/],
    [{ model: 'any', max_tokens: 8, messages: convo.messages, tool_choice: { type: 'maybe' } }, /tool_choice/],
    [{ model: 'any', max_tokens: 8, messages: convo.messages, stop_sequences: 'x' }, /stop_sequences/],
    ['{"model": "any", "max_tokens": ', /JSON|json/],
];
let allBad = true;
for (const [body, re] of bad) {
    const r = await call('/v1/messages', body);
    const ok = r.status === 400 && r.json?.type === 'error' && r.json.error.type === 'invalid_request_error' &&
               re.test(r.json.error.message);
    if (!ok) console.log('  unexpected:', JSON.stringify(body).slice(0, 80), r.status, r.text.slice(0, 200));
    allBad &&= ok;
}
check(allBad, 'bad requests: 400 with an invalid_request_error naming the field');
const noKey = await call('/v1/messages', { model: 'any', max_tokens: 8, ...convo }, {});
check(noKey.status === 401, 'no x-api-key: 401');
const after = await call('/v1/messages', { model: 'any', max_tokens: 24, temperature: 0, ...convo });
check(after.status === 200 && after.json.content[0].text === m.json.content[0].text, 'still serving, same answer');
done();
