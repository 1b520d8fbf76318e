// llama-server on a hybrid model (the lfm2 micro model: short-convolution layers with a per-sequence
// state, attention layers with a KV cache), 4 slots (-np 4). Concurrent requests through the official
// OpenAI client each get the text the library's greedy decoding gives alone. The slots' prompt reuse
// on a state that cannot be cut back: a prompt that extends a slot's cache continues from it, the same
// prompt again (the server re-decodes its last token, which would need seq_rm from the middle) and a
// prompt sharing only part of the cache are read again in full; every text stays the library's.
import { createRequire } from 'node:module';
import { BASE, check, done, greedyRef, post } from './common.mjs';

const require = createRequire(process.env.NODE_PATH + '/');
const OpenAI = require('openai');
const client = new OpenAI({ baseURL: BASE + '/v1', apiKey: 'unused', maxRetries: 0, timeout: 60000 });

// every reference first: greedyRef blocks node's event loop (see openai.mjs)
const prompts = ['Once upon a time', 'The little dog', 'Lily wanted to', 'A big red ball', 'Tom and Sue went to the park',
                 'The sun', 'Mom said', 'There was a tree'];
const refs = greedyRef(prompts, 24);
const base = 'Once upon a time there was a little girl named Lily. She';
const [refBase] = greedyRef([base], 16);
const longer = base + ' was happy. Then';
const partial = 'Once upon a time there was a big dog';
const [refLonger, refPartial] = greedyRef([longer, partial], 16);

const res = await Promise.all(prompts.map((p) => client.completions.create({ model: 'x', prompt: p, max_tokens: 24,
                                                                             temperature: 0 })));
for (let i = 0; i < prompts.length; i++) {
    check(res[i].choices[0].text === refs[i], `concurrent completion = library greedy alone (${prompts[i]})`,
          JSON.stringify([res[i].choices[0].text, refs[i]]));
}

const complete = async (prompt) => (await post('/completion', { prompt, n_predict: 16, temperature: 0 })).json;
const a = await complete(base);
check(a.content === refBase, 'completion = library greedy', JSON.stringify([a.content, refBase]));
const again = await complete(base);
check(again.content === refBase && again.tokens_cached === 0,
      'the same prompt again: read in full (the state cannot be cut back), same text',
      JSON.stringify([again.content, again.tokens_cached]));
// one token from `base`: the slot's cache is then exactly base's tokens, which `longer` extends
await post('/completion', { prompt: base, n_predict: 1, temperature: 0 });
const b = await complete(longer);
check(b.content === refLonger, 'a prompt extending a slot\'s cache = library greedy', JSON.stringify([b.content, refLonger]));
check(b.tokens_cached > 0, 'a prompt extending a slot\'s cache continues from its state',
      `${b.tokens_cached} of ${b.tokens_evaluated}`);
const c = await complete(partial);
check(c.content === refPartial && c.tokens_cached === 0, 'a prompt sharing part of a cache: read in full, same text',
      JSON.stringify([c.content, refPartial, c.tokens_cached]));
done();
