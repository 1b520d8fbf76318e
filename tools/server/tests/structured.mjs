// Structured output and the extra samplers through the official OpenAI client: response_format
// json_schema / json_object, a raw GBNF `grammar`, upstream's sampler fields, and 400s for bad
// schemas and grammars. The server runs with -np 2 -c 4096 (run-server-test.sh).
import { createRequire } from 'node:module';
import { check, done, greedyRef } from './common.mjs';

const require = createRequire(process.env.NODE_PATH + '/');
const OpenAI = require('openai');
const client = new OpenAI({ baseURL: 'http://127.0.0.1:' + process.env.PORT + '/v1', apiKey: 'unused',
                            maxRetries: 0, timeout: 60000 });
const ref = greedyRef(['Once upon a time'], 32)[0];

// bounded everywhere, so that even a tiny model ends the object within max_tokens
const schema = {
    type: 'object',
    properties: {
        name: { type: 'string', minLength: 1, maxLength: 12 },
        age: { type: 'integer' },
        mood: { enum: ['happy', 'sad'] },
        friends: { type: 'array', items: { type: 'string', maxLength: 8 }, maxItems: 3 },
        pet: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/pet' }] },
    },
    required: ['name', 'age', 'mood'],
    additionalProperties: false,
    $defs: { pet: { type: 'object', properties: { kind: { const: 'cat' }, legs: { type: 'integer' } },
                    required: ['kind'] } },
};
// an independent check of the instance against the schema above
const valid = (v) => {
    const keys = Object.keys(v ?? {});
    return v !== null && typeof v === 'object' && !Array.isArray(v) &&
        keys.every((k) => ['name', 'age', 'mood', 'friends', 'pet'].includes(k)) &&
        typeof v.name === 'string' && v.name.length >= 1 && v.name.length <= 12 &&
        Number.isInteger(v.age) && ['happy', 'sad'].includes(v.mood) &&
        (v.friends === undefined || (Array.isArray(v.friends) && v.friends.length <= 3 &&
                                     v.friends.every((f) => typeof f === 'string' && f.length <= 8))) &&
        (v.pet === undefined || v.pet === null ||
         (v.pet.kind === 'cat' && Object.keys(v.pet).every((k) => ['kind', 'legs'].includes(k)) &&
          (v.pet.legs === undefined || Number.isInteger(v.pet.legs))));
};
const parse = (s) => { try { return JSON.parse(s); } catch { return undefined; } };

const msgs = [{ role: 'user', content: 'Tell me about a girl.' }];
const rf = { type: 'json_schema', json_schema: { name: 'person', schema } };
const g = await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 400, temperature: 0,
                                                 response_format: rf });
const gc = g.choices[0].message.content;
check(g.choices[0].finish_reason === 'stop' && valid(parse(gc)), 'json_schema, greedy: parses and matches', gc);
const sampled = await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 400, temperature: 1,
                                                       seed: 5, n: 3, response_format: rf });
for (const c of sampled.choices) {
    check(c.finish_reason === 'stop' && valid(parse(c.message.content)), `json_schema, sampled choice ${c.index}`,
          c.message.content);
}
const st = await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 400, temperature: 0,
                                                  response_format: rf, stream: true });
let streamed = '';
for await (const chunk of st) {
    streamed += chunk.choices[0]?.delta?.content ?? '';
}
check(streamed === gc, 'json_schema streamed = not streamed', JSON.stringify([streamed, gc]));

// bounds: integers (a negative range too), string lengths, number bounds and a date, each checked
// on the reply by hand; sampled hot so that the model would stray if the grammar let it
const bounded = {
    type: 'object',
    properties: {
        age: { type: 'integer', minimum: 0, maximum: 99 },
        delta: { type: 'integer', minimum: -50, exclusiveMaximum: -9 },
        code: { type: 'string', minLength: 3, maxLength: 5 },
        score: { type: 'number', minimum: 0, maximum: 1 },
        day: { type: 'string', format: 'date' },
    },
    required: ['age', 'delta', 'code', 'score'],
    additionalProperties: false,
};
const days = (y, m) => new Date(Date.UTC(y, m, 0)).getUTCDate();
const dateOk = (d) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d);
    return m !== null && +m[2] >= 1 && +m[2] <= 12 && +m[3] >= 1 && +m[3] <= days(+m[1], +m[2]);
};
const boundedOk = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) &&
    Object.keys(v).every((k) => k in bounded.properties) &&
    Number.isInteger(v.age) && v.age >= 0 && v.age <= 99 &&
    Number.isInteger(v.delta) && v.delta >= -50 && v.delta < -9 &&
    typeof v.code === 'string' && [...v.code].length >= 3 && [...v.code].length <= 5 &&
    typeof v.score === 'number' && v.score >= 0 && v.score <= 1 &&
    (v.day === undefined || (typeof v.day === 'string' && dateOk(v.day)));
const brf = { type: 'json_schema', json_schema: { name: 'bounded', strict: true, schema: bounded } };
const bs = await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 300, temperature: 1.5,
                                                  seed: 11, n: 4, response_format: brf });
for (const c of bs.choices) {
    check(c.finish_reason === 'stop' && boundedOk(parse(c.message.content)), `bounded schema, choice ${c.index}`,
          c.message.content);
}

// json_object: starts an object; a finished reply parses as one
const jo = await client.completions.create({ model: 'x', prompt: 'Once upon a time', max_tokens: 200, temperature: 0,
                                            response_format: { type: 'json_object' } });
const jt = jo.choices[0].text;
check(jt.startsWith('{') && (jo.choices[0].finish_reason !== 'stop' ||
                             (parse(jt) !== null && typeof parse(jt) === 'object' && !Array.isArray(parse(jt)))),
      'json_object: an object', jt);

// raw GBNF
const yn = await client.completions.create({ model: 'x', prompt: 'Once upon a time', max_tokens: 10, temperature: 1,
                                            seed: 3, grammar: 'root ::= ("yes" | "no") "!"' });
check(['yes!', 'no!'].includes(yn.choices[0].text) && yn.choices[0].finish_reason === 'stop', 'grammar: yes! or no!',
      yn.choices[0].text);

const yne = await client.completions.create({ model: 'x', prompt: 'Once', max_tokens: 10, temperature: 0,
                                             ignore_eos: true, grammar: 'root ::= ("yes" | "no") "!"' });
check(['yes!', 'no!'].includes(yne.choices[0].text) && yne.choices[0].finish_reason === 'stop',
      'grammar with ignore_eos: the grammar\'s end still ends the reply', yne.choices[0].text);

// sampler fields: settings that leave only the most likely token equal greedy; the others run
const comp = (extra) => client.completions.create({ model: 'x', prompt: 'Once upon a time', max_tokens: 32, seed: 9,
                                                    temperature: 1, ...extra });
const sigma = await comp({ top_n_sigma: 0.0001 });
check(sigma.choices[0].text === ref, 'top_n_sigma ~0 = greedy', JSON.stringify([sigma.choices[0].text, ref]));
const miro = await comp({ mirostat: 2, mirostat_tau: 0.0001, mirostat_eta: 0.1 });
check(miro.choices[0].text === ref, 'mirostat 2 with tau ~0 = greedy', JSON.stringify([miro.choices[0].text, ref]));
const dry = await comp({ temperature: 0, max_tokens: 96, dry_multiplier: 5, dry_base: 3, dry_allowed_length: 1,
                         dry_penalty_last_n: -1, dry_sequence_breakers: [] });
const plain = await comp({ temperature: 0, max_tokens: 96 });
check(dry.choices[0].text !== plain.choices[0].text, 'dry changes a greedy reply', dry.choices[0].text);
const rest = await comp({ xtc_probability: 0.5, xtc_threshold: 0.1, typical_p: 0.9, min_p: 0.05, repeat_penalty: 1.1,
                          repeat_last_n: 16, presence_penalty: 0.5, frequency_penalty: 0.5, mirostat: 0 });
check(rest.choices[0].text.length > 0, 'xtc, typical_p, min_p, penalties run', rest.choices[0].text);
const miro1 = await comp({ mirostat: 1, mirostat_tau: 3, mirostat_eta: 0.2 });
check(miro1.choices[0].text.length > 0, 'mirostat 1 runs');

// errors: 400 with a message naming the problem; the server keeps serving
const status = async (body, want) => {
    try {
        await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 4, ...body });
        return 'accepted';
    } catch (err) {
        return err.status === 400 && String(err.message).includes(want) ? 'ok' : `${err.status} ${err.message}`;
    }
};
const bad = [
    [{ response_format: { type: 'json_schema', json_schema: { schema: { type: 'string', pattern: '^(?=a)' } } } },
     'lookaround'],
    [{ response_format: { type: 'json_schema', json_schema: { schema: { $ref: 'http://x/y.json' } } } }, '$ref'],
    [{ response_format: { type: 'json_schema', json_schema: { schema: { allOf: [{ type: 'string' }, { type: 'null' }] } } } },
     'allOf'],
    [{ response_format: { type: 'json_schema', json_schema: { schema: { type: 'integer', multipleOf: 3 } } } },
     "'multipleOf'"],
    [{ response_format: { type: 'json_schema', json_schema: { schema: { type: 'number', minimum: 0.5 } } } },
     "'minimum'"],
    [{ response_format: { type: 'json_schema', json_schema: { schema: { type: 'string', format: 'email' } } } },
     "'format'"],
    [{ response_format: { type: 'json_schema',
                          json_schema: { schema: { oneOf: [{ type: 'integer' }, { type: 'number' }] } } } }, "'oneOf'"],
    [{ response_format: { type: 'json_schema', json_schema: { schema: { type: 'object', required: ['q'] } } } }, "'q'"],
    [{ response_format: { type: 'json_schema', json_schema: { name: 'no schema' } } }, 'schema'],
    [{ response_format: { type: 'xml' } }, 'response_format.type'],
    [{ grammar: 'root ::= ( "a"' }, 'grammar'],
    [{ grammar: 'root ::= "a"', response_format: { type: 'json_object' } }, 'only one'],
    [{ mirostat: 3 }, 'mirostat'],
    [{ dry_base: 0.5 }, 'dry_base'],
    [{ dry_sequence_breakers: 'x' }, 'dry_sequence_breakers'],
    [{ xtc_probability: 2 }, 'xtc_probability'],
];
for (const [body, want] of bad) {
    const r = await status(body, want);
    check(r === 'ok', `400 for ${JSON.stringify(body)}`, r);
}
const after = await client.completions.create({ model: 'x', prompt: 'Once upon a time', max_tokens: 32, temperature: 0 });
check(after.choices[0].text === ref, 'still serving, greedy unchanged', after.choices[0].text);
done();
