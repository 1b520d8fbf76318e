// llama-server's native endpoints (upstream's shapes) with plain fetch: /completion (streamed and
// not, n_probs, stop words, token and mixed prompts, cache_prompt), /tokenize and /detokenize,
// /apply-template against chat completions, /props, /slots, /v1/models meta, /embedding, and
// bad input on each (400, the server keeps serving).
import { BASE, check, done, greedyRef, post } from './common.mjs';

const refs = greedyRef(['Once upon a time', 'The little dog'], 24);
const get = async (path) => (await fetch(BASE + path)).json();

// /completion, greedy
const c1 = (await post('/completion', { prompt: 'Once upon a time', n_predict: 24, temperature: 0, n_probs: 3,
                                        return_tokens: true })).json;
check(c1 && c1.content === refs[0] && c1.stop === true, 'completion: content = library greedy', JSON.stringify(c1?.content));
check(c1.tokens_predicted === 24 && c1.stop_type === 'limit' && c1.tokens.length === 24 && c1.tokens_evaluated === 5,
      'completion: tokens_predicted, tokens_evaluated, stop_type limit, tokens');
check(c1.timings && c1.timings.predicted_n === 24 && c1.timings.prompt_ms >= 0 && typeof c1.id_slot === 'number',
      'completion: timings and id_slot');
const probs = c1.completion_probabilities ?? [];
check(probs.length === 24 && probs.every((p, i) => p.id === c1.tokens[i] && p.logprob <= 0 && p.top_logprobs.length === 3 &&
      p.top_logprobs[0].id === p.id && p.top_logprobs.every((t, k) => k === 0 || p.top_logprobs[k - 1].logprob >= t.logprob)),
      'completion: completion_probabilities (greedy token first, sorted)');
check(probs.map((p) => p.token).join('') === c1.content, 'completion: probability tokens concatenate to the content');

// streamed: data lines, the last with stop true, no [DONE]
const res = await fetch(BASE + '/completion', { method: 'POST', body: JSON.stringify({ prompt: 'Once upon a time', n_predict: 24,
                                                                                       temperature: 0, stream: true }) });
const lines = (await res.text()).split('\n').filter((l) => l.length > 0);
const events = lines.map((l) => JSON.parse(l.slice('data: '.length)));
check(lines.every((l) => l.startsWith('data: {')), 'completion stream: data: {...} lines only');
check(events.map((e) => e.content).join('') === refs[0] && events.at(-1).stop === true &&
      events.slice(0, -1).every((e) => e.stop === false), 'completion stream: content pieces = not streamed, last stop');
check(events.flatMap((e) => e.tokens).length === 24, 'completion stream: every token id once');

// stop words, token prompts, mixed prompts, cache_prompt
const word = refs[0].slice(8, 13);
const c2 = (await post('/completion', { prompt: 'Once upon a time', n_predict: 24, temperature: 0, stop: [word] })).json;
check(c2.content === refs[0].slice(0, refs[0].indexOf(word)) && c2.stop_type === 'word' && c2.stopping_word === word,
      'completion: stop word, stop_type word', JSON.stringify(c2));
const ids = (await post('/tokenize', { content: 'Once upon a time', add_special: true })).json.tokens;
const c3 = (await post('/completion', { prompt: ids, n_predict: 24, temperature: 0 })).json;
check(c3.content === refs[0], 'completion: token-id prompt = text prompt');
const head = (await post('/tokenize', { content: 'The', add_special: true })).json.tokens;
const tail = (await post('/tokenize', { content: ' little dog' })).json.tokens;
const c4 = (await post('/completion', { prompt: [...head, ' little dog'], n_predict: 4, temperature: 0 })).json;
check(c4.tokens_evaluated === head.length + tail.length, 'completion: mixed prompt (ids then text)');
const c5 = (await post('/completion', { prompt: ['Once upon a time', 'The little dog'], n_predict: 24, temperature: 0 })).json;
check(Array.isArray(c5) && c5.length === 2 && c5[0].content === refs[0] && c5[1].content === refs[1] && c5[1].index === 1,
      'completion: a prompt list gives an array of results');
const c6 = (await post('/completion', { prompt: 'Once upon a time', n_predict: 2, cache_prompt: false })).json;
const c7 = (await post('/completion', { prompt: 'Once upon a time', n_predict: 2 })).json;
check(c6.tokens_cached === 0 && c7.tokens_cached > 0, 'completion: cache_prompt false reads the whole prompt',
      `${c6.tokens_cached} ${c7.tokens_cached}`);

// /tokenize with pieces and /detokenize round trip
const text = 'Once upon a time, á big dog';
const tk = (await post('/tokenize', { content: text, with_pieces: true })).json.tokens;
const pieceBytes = tk.map((t) => (typeof t.piece === 'string' ? Buffer.from(t.piece) : Buffer.from(t.piece)));
// the tokenizer (SentencePiece) puts a space in front of the text
check(tk.every((t) => Number.isInteger(t.id)) && Buffer.concat(pieceBytes).toString('utf8') === ' ' + text,
      'tokenize: pieces concatenate to the text');
check(tk.some((t) => Array.isArray(t.piece)), 'tokenize: a partial UTF-8 piece comes as bytes');
const dt = (await post('/detokenize', { tokens: tk.map((t) => t.id) })).json;
check(dt.content === text, 'detokenize(tokenize(text)) = text', JSON.stringify(dt));
const withBos = (await post('/tokenize', { content: text, add_special: true })).json.tokens;
check(withBos.length === tk.length + 1, 'tokenize: add_special adds BOS');

// /apply-template: the chat renderer's prompt, which tokenizes as chat completion's prompt
const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me a story' }];
const at = (await post('/apply-template', { messages })).json;
const chat = (await post('/v1/chat/completions', { messages, max_tokens: 1 })).json;
const asText = (await post('/v1/completions', { prompt: at.prompt, max_tokens: 1 })).json;
check(typeof at.prompt === 'string' && at.prompt.includes('Tell me a story') &&
      asText.usage.prompt_tokens === chat.usage.prompt_tokens, 'apply-template prompt = chat completion prompt (tokens)',
      `${asText.usage?.prompt_tokens} ${chat.usage?.prompt_tokens}`);

// /props, /slots, /v1/models meta
const props = await get('/props');
check(props.total_slots === 2 && props.model_alias === 'stories260K.gguf' && props.model_path.endsWith('stories260K.gguf') &&
      props.default_generation_settings.n_ctx === 1024 && typeof props.default_generation_settings.params.temperature === 'number' &&
      typeof props.chat_template === 'string' && typeof props.build_info === 'string', 'props: upstream fields',
      JSON.stringify(props).slice(0, 300));
const slots = await get('/slots');
check(Array.isArray(slots) && slots.length === 2 && slots.every((s, i) => s.id === i && s.n_ctx === 1024 &&
      s.is_processing === false && typeof s.next_token.n_decoded === 'number'), 'slots: one entry per slot, idle');
// while a stream runs, its slot shows as processing with tokens decoded
const ctl = new AbortController();
const busy = await fetch(BASE + '/completion', { method: 'POST', signal: ctl.signal,
                                                 body: JSON.stringify({ prompt: 'Once', n_predict: 1000, ignore_eos: true, stream: true }) });
const reader = busy.body.getReader();
await reader.read();
const during = await get('/slots');
ctl.abort();
const running = during.filter((x) => x.is_processing);
check(running.length === 1 && running[0].next_token.n_decoded > 0 && running[0].next_token.has_next_token === true &&
      running[0].next_token.n_remain === 1000 - running[0].next_token.n_decoded, 'slots: a running stream is processing',
      JSON.stringify(during));
const models = await get('/v1/models');
const meta = models.data[0].meta;
check(meta && meta.n_vocab === 512 && meta.n_embd === 64 && meta.n_ctx_train > 0 && meta.n_params > 0 && meta.size > 0,
      'v1/models: meta', JSON.stringify(meta));

// /embedding: upstream's shape, the same vector as /v1/embeddings
const emb = (await post('/embedding', { content: 'Once upon a time' })).json;
const oai = (await post('/v1/embeddings', { input: 'Once upon a time', encoding_format: 'float' })).json;
check(Array.isArray(emb) && emb[0].index === 0 && emb[0].embedding.length === 1 && emb[0].embedding[0].length === 64 &&
      emb[0].embedding[0].every((x, i) => Math.abs(x - oai.data[0].embedding[i]) < 1e-6), 'embedding: pooled, = /v1/embeddings');

// bad input: 400 naming the field, and the server keeps serving
const bad = [
    ['/completion', '{"prompt": "x", ', 'malformed JSON'],
    ['/completion', { prompt: 5 }, "'prompt'"],
    ['/completion', { n_predict: 4 }, "'prompt'"],
    ['/completion', { prompt: [1, 512] }, "'prompt'"],
    ['/completion', { prompt: 'x', n_predict: 'many' }, "'n_predict'"],
    ['/completion', { prompt: 'x', n_probs: 101 }, "'n_probs'"],
    ['/completion', { prompt: 'x', cache_prompt: 'no' }, "'cache_prompt'"],
    ['/completion', { prompt: 'x', temperature: 'hot' }, "'temperature'"],
    ['/tokenize', '[1, 2', 'malformed JSON'],
    ['/tokenize', { content: 5 }, "'content'"],
    ['/tokenize', { content: 'x', with_pieces: 'yes' }, "'with_pieces'"],
    ['/detokenize', { tokens: [1, 512] }, "'tokens'"],
    ['/detokenize', { tokens: [-3] }, "'tokens'"],
    ['/detokenize', { tokens: 'abc' }, "'tokens'"],
    ['/detokenize', {}, "'tokens'"],
    ['/apply-template', {}, "'messages'"],
    ['/apply-template', { messages: 'hi' }, "'messages'"],
    ['/embedding', { content: 3 }, "'content'"],
    ['/embedding', { content: 'x', embd_normalize: 'l2' }, "'embd_normalize'"],
];
for (const [path, body, what] of bad) {
    const r = await post(path, body);
    check(r.status === 400 && r.json?.error?.message?.includes(what.startsWith("'") ? what : 'JSON'),
          `error: ${path} ${what}`, `${r.status} ${r.text.slice(0, 200)}`);
}
const last = (await post('/completion', { prompt: 'The little dog', n_predict: 24, temperature: 0 })).json;
check(last.content === refs[1], 'the server keeps serving after the errors');

done();
