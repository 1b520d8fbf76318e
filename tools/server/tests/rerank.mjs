// Reranking and the model's pooling (docs/server.md): a synthetic BERT reranker (classifier head,
// pooling rank) served with --reranking, and a synthetic BERT encoder whose GGUF says pooling cls,
// served with its own pooling and with --pooling cls|mean|none. Checks the ordering, that a score
// depends only on its (query, document) pair (not on the other documents, their order or how they are
// batched), the four route spellings, top_n, return_documents, the TEI shape, bad input, the 501 of a
// server that does not rerank, and the embeddings of each pooling against the per-token rows.
// Starts its own servers; the models are written by llama-gguf-synth (SERVER, SYNTH, VOCAB, WORK and
// NODE_PATH from run-server-test.sh).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { check, done } from './common.mjs';

const require = createRequire(process.env.NODE_PATH + '/');
const OpenAI = require('openai');

const { SERVER, SYNTH, VOCAB, WORK } = process.env;

// A small BERT (32 x 2, 128 positions, F32) with spread-out weights so that documents score apart.
function synth(name, extra) {
    const path = `${WORK}/rerank-${name}.gguf`;
    execFileSync(SYNTH, ['-o', path, '--arch', 'bert', '--n-embd', '32', '--n-layer', '2', '--n-ff', '64',
        '--n-head', '4', '--n-ctx', '128', '--type', 'f32', '--std', '0.25', '--vocab', VOCAB, ...extra]);
    return path;
}
// The vocabulary file with one more string key. It has no tensors, so its keys end the file.
function withStringKey(src, dst, key, value) {
    const b = readFileSync(src);
    if (b.toString('latin1', 0, 4) !== 'GGUF' || b.readBigUInt64LE(8) !== 0n) {
        throw new Error(`${src}: expected a GGUF without tensors`);
    }
    const nKv = Number(b.readBigUInt64LE(16));
    const fixed = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
    let off = 24;
    const skipStr = () => (off += 8 + Number(b.readBigUInt64LE(off)));
    const skipVal = (t) => {
        if (t === 8) {
            skipStr();
        } else if (t === 9) {
            const et = b.readUInt32LE(off);
            const n = Number(b.readBigUInt64LE(off + 4));
            off += 12;
            for (let i = 0; i < n; i++) skipVal(et);
        } else {
            off += fixed[t];
        }
    };
    for (let i = 0; i < nKv; i++) {
        skipStr();
        const t = b.readUInt32LE(off);
        off += 4;
        skipVal(t);
    }
    const str = (x) => {
        const d = Buffer.from(x, 'utf8');
        const n = Buffer.alloc(8);
        n.writeBigUInt64LE(BigInt(d.length));
        return Buffer.concat([n, d]);
    };
    const type = Buffer.alloc(4);
    type.writeUInt32LE(8);  // string
    const head = Buffer.from(b.subarray(0, 24));
    head.writeBigUInt64LE(BigInt(nKv + 1), 16);
    const out = Buffer.concat([head, b.subarray(24, off), str(key), type, str(value)]);
    writeFileSync(dst, Buffer.concat([out, Buffer.alloc((32 - (out.length % 32)) % 32)]));
}

const RANKER = synth('ranker', ['--cls-out', '1']);  // pooling rank (the tool's default with a head)
// the same weights (same seed) with a rerank template that ignores the query: [CLS] [SEP] doc
// is what the default layout makes of an empty query
const TEMPLATE_VOCAB = `${WORK}/rerank-template-vocab.gguf`;
withStringKey(VOCAB, TEMPLATE_VOCAB, 'tokenizer.chat_template.rerank', '[CLS][SEP]{document}');
const TEMPLATED = synth('templated', ['--cls-out', '1', '--vocab', TEMPLATE_VOCAB]);
const ENCODER = synth('encoder', ['--pooling', '2']);  // pooling cls

// Starts a server; resolves with its port (as args.mjs).
function start(model, args) {
    const child = spawn(SERVER, ['-m', model, '--port', '0', '-np', '1', '-c', '512', ...args],
        { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 60000);
        const onData = (d) => {
            out += d;
            const m = out.match(/listening on http:\/\/[^:]*:(\d+)/);
            if (m) {
                clearTimeout(timer);
                resolve({ child, base: `http://127.0.0.1:${m[1]}` });
            }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
}

function stop(srv) {
    return new Promise((resolve) => {
        srv.child.removeAllListeners('exit');
        srv.child.on('exit', (code) => resolve(code));
        srv.child.kill('SIGTERM');
    });
}

async function post(srv, path, body) {
    const res = await fetch(srv.base + path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json = null;
    try {
        json = JSON.parse(text);
    } catch {}
    return { status: res.status, json, text };
}

const close = (a, b, tol = 1e-4) => Math.abs(a - b) <= tol;
const l2 = (v) => {
    const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    return v.map((x) => x / n);
};
const same = (a, b, tol = 1e-4) => a.length === b.length && a.every((x, i) => close(x, b[i], tol));

// ---- a model without a classifier head cannot rerank: a start-up error naming the cause
{
    const r = spawnSync(SERVER, ['-m', ENCODER, '--port', '0', '--reranking'], { encoding: 'utf8', timeout: 60000 });
    check(r.status !== 0 && r.stderr.includes('classifier head'), '--reranking without a classifier head is refused',
        `status ${r.status}: ${r.stderr}`);
}

const ranker = await start(RANKER, ['--reranking']);
const query = 'what is a panda';
const docs = [
    'hi',
    'it is a bear',
    'The giant panda is a bear species endemic to China.',
    'pandas eat bamboo',
    'the stock market fell today',
    'a red panda is not a bear',
];

// ---- the ranking: every document once, best first, and scores that tell documents apart
const full = await post(ranker, '/v1/rerank', { query, documents: docs, model: 'my-ranker' });
const results = full.json?.results ?? [];
check(full.status === 200 && full.json.object === 'list' && full.json.model === 'my-ranker',
    'rerank: 200, object list, the request\'s model echoed', full.text);
check(results.length === docs.length && new Set(results.map((r) => r.index)).size === docs.length,
    'rerank: one result per document', full.text);
check(results.every((r, i) => i === 0 || results[i - 1].relevance_score >= r.relevance_score),
    'rerank: sorted by relevance_score, best first', full.text);
check(new Set(results.map((r) => r.relevance_score.toFixed(6))).size > 1, 'rerank: the scores differ by document',
    full.text);
check(results.every((r) => r.document === undefined), 'rerank: no document unless asked');
const score = Object.fromEntries(results.map((r) => [r.index, r.relevance_score]));

// ---- a score is its pair's alone: each document by itself, and the list reversed
let alone = 0;
let tokens = 0;
for (let i = 0; i < docs.length; i++) {
    const one = await post(ranker, '/rerank', { query, documents: [docs[i]] });
    const s = one.json?.results?.[0]?.relevance_score;
    alone += close(s, score[i]) ? 1 : 0;
    tokens += one.json?.usage?.prompt_tokens ?? NaN;
}
check(alone === docs.length, 'rerank: a document alone scores as in the list (within 1e-4)', `${alone} of ${docs.length}`);
check(full.json.usage.prompt_tokens === tokens && full.json.usage.total_tokens === tokens,
    'rerank: usage counts every pair\'s tokens', `${JSON.stringify(full.json.usage)} vs ${tokens}`);
const rev = await post(ranker, '/rerank', { query, documents: [...docs].reverse() });
check((rev.json?.results ?? []).every((r) => close(r.relevance_score, score[docs.length - 1 - r.index])) &&
      rev.json.results.length === docs.length, 'rerank: scores do not depend on the documents\' order', rev.text);

// more documents than one decode takes (16 sequences): the same scores as one at a time
const many = Array.from({ length: 20 }, (_, i) => docs[i % docs.length] + ' '.repeat(i % 3) + (i >= 6 ? ` ${i}` : ''));
const manyRes = await post(ranker, '/v1/reranking', { query, documents: many });
let manyOk = manyRes.status === 200 && manyRes.json.results.length === many.length;
for (const r of manyRes.json?.results ?? []) {
    const one = await post(ranker, '/v1/rerank', { query, documents: [many[r.index]] });
    manyOk = manyOk && close(one.json.results[0].relevance_score, r.relevance_score);
}
check(manyOk, 'rerank: 20 documents in several decodes score as each alone', manyRes.text.slice(0, 300));

// ---- the four routes answer the same; top_n; return_documents; {text} objects; the TEI shape
const bodies = await Promise.all(['/rerank', '/reranking', '/v1/rerank', '/v1/reranking'].map(
    (p) => post(ranker, p, { query, documents: docs, model: 'my-ranker' })));
check(bodies.every((b) => b.text === full.text), '/rerank, /reranking, /v1/rerank and /v1/reranking agree');
const top = await post(ranker, '/v1/rerank', { query, documents: docs, top_n: 2, return_documents: true });
check(top.status === 200 && top.json.results.length === 2 &&
      top.json.results.every((r, i) => r.index === results[i].index && r.document?.text === docs[r.index]),
    'rerank: top_n 2 keeps the best two, return_documents gives their text', top.text);
check((await post(ranker, '/v1/rerank', { query, documents: docs, top_n: 100 })).json?.results?.length === docs.length,
    'rerank: top_n beyond the documents gives all');
const objs = await post(ranker, '/v1/rerank', { query, documents: docs.map((text) => ({ text })) });
check(JSON.stringify(objs.json?.results) === JSON.stringify(results), 'rerank: {"text": ...} documents score as strings',
    objs.text);
const tei = await post(ranker, '/rerank', { query, texts: docs, return_text: true });
check(Array.isArray(tei.json) && tei.json.length === docs.length &&
      tei.json.every((r, i) => r.index === results[i].index && close(r.score, results[i].relevance_score) &&
          r.text === docs[r.index]), 'rerank: TEI texts give a bare array of {index, score, text}', tei.text);

// ---- bad input: 400 naming the field, and the server keeps serving
const bad = [
    [{ documents: docs }, "'query'"],
    [{ query: 7, documents: docs }, "'query'"],
    [{ query }, "'documents'"],
    [{ query, documents: [] }, "'documents'"],
    [{ query, documents: 'one' }, "'documents'"],
    [{ query, documents: Array(1025).fill('x') }, "'documents'"],
    [{ query, documents: ['a', 3] }, "'documents[1]'"],
    [{ query, documents: [{ content: 'a' }] }, "'documents[0]'"],
    [{ query, texts: [null] }, "'texts[0]'"],
    [{ query, documents: docs, top_n: 0 }, "'top_n'"],
    [{ query, documents: docs, top_n: '2' }, "'top_n'"],
    [{ query, documents: docs, return_documents: 'yes' }, "'return_documents'"],
    [{ query, documents: ['bear '.repeat(200)] }, "'documents[0]'"],
];
for (const [body, field] of bad) {
    const r = await post(ranker, '/v1/rerank', body);
    check(r.status === 400 && r.json?.error?.message?.includes(field), `rerank: 400 naming ${field}`,
        `${r.status} ${r.text.slice(0, 200)}`);
}
const notJson = await post(ranker, '/v1/rerank', '{"query": ');
check(notJson.status === 400, 'rerank: malformed JSON is a 400', notJson.text);
const emb = await post(ranker, '/v1/embeddings', { input: 'hi' });
check(emb.status === 400 && emb.json?.error?.message?.includes('rank'), 'a reranker\'s /v1/embeddings is a 400',
    emb.text);
const again = await post(ranker, '/v1/rerank', { query, documents: docs, model: 'my-ranker' });
check(again.text === full.text, 'rerank: still serving, and deterministic, after the bad requests');
check((await stop(ranker)) === 0, 'the reranker stops cleanly');

// ---- the model's rerank template replaces the default layout
{
    const templated = await start(TEMPLATED, ['--reranking']);
    const ranker2 = await start(RANKER, ['--reranking']);
    const viaTemplate = await post(templated, '/v1/rerank', { query, documents: docs });
    const emptyQuery = await post(ranker2, '/v1/rerank', { query: '', documents: docs });
    check(viaTemplate.status === 200 && JSON.stringify(viaTemplate.json.results) === JSON.stringify(emptyQuery.json?.results) &&
          viaTemplate.json.usage.prompt_tokens === emptyQuery.json.usage.prompt_tokens,
        'rerank: the model\'s rerank template is used ({document} only = the default layout of an empty query)',
        `${viaTemplate.text.slice(0, 200)} vs ${emptyQuery.text.slice(0, 200)}`);
    check(JSON.stringify(viaTemplate.json?.results) !== JSON.stringify(results), 'rerank: and differs from the query\'s scores');
    const codes = await Promise.all([templated, ranker2].map(stop));
    check(codes.every((c) => c === 0), 'the template servers stop cleanly', codes.join(','));
}

// ---- embeddings with the model's pooling (cls), against --pooling cls, mean and none
const [own, cls, mean, none] = await Promise.all([
    start(ENCODER, []), start(ENCODER, ['--pooling', 'cls']), start(ENCODER, ['--pooling', 'mean']),
    start(ENCODER, ['--pooling', 'none'])]);
const text = 'the giant panda eats bamboo';
const client = (srv) => new OpenAI({ baseURL: srv.base + '/v1', apiKey: 'none' });
const vOwn = (await client(own).embeddings.create({ model: 'x', input: text, encoding_format: 'float' })).data[0].embedding;
const vCls = (await client(cls).embeddings.create({ model: 'x', input: [text] })).data[0].embedding;
// a list is decoded together; each vector is still its own text's
const texts = [text, 'hi', 'bamboo forests of sichuan and shaanxi'];
const listed = (await post(cls, '/v1/embeddings', { input: texts })).json?.data ?? [];
const singles = await Promise.all(texts.map(async (t) => (await post(cls, '/v1/embeddings', { input: t })).json?.data?.[0]?.embedding ?? []));
check(listed.length === 3 && listed.every((d, i) => d.index === i && same(d.embedding, singles[i])) && same(singles[0], vCls),
    'embeddings: a list of inputs gives each input\'s own vector');
const vMean = (await post(mean, '/v1/embeddings', { input: text })).json?.data?.[0]?.embedding ?? [];
check(vOwn.length === 32 && same(vOwn, vCls), "embeddings: the model's pooling (cls) equals --pooling cls (openai client)",
    `${vOwn.length}`);
check(vMean.length === 32 && !same(vOwn, vMean), 'embeddings: --pooling mean gives another vector');
const rows = (await post(none, '/embedding', { content: text })).json?.[0]?.embedding ?? [];
check(rows.length > 2 && rows.every((r) => r.length === 32), '/embedding with --pooling none: one row per token',
    `${rows.length} rows`);
check(rows.length > 0 && same(vCls, l2(rows[0])), 'embeddings: cls is the first token\'s row, L2-normalised');
const avg = rows.length > 0 ? rows[0].map((_, j) => rows.reduce((s, r) => s + r[j], 0) / rows.length) : [];
check(rows.length > 0 && same(vMean, l2(avg)), 'embeddings: mean is the mean of the rows, L2-normalised');
const raw = (await post(own, '/embedding', { content: text, embd_normalize: -1 })).json?.[0]?.embedding?.[0] ?? [];
check(rows.length > 0 && same(raw, rows[0]), '/embedding embd_normalize -1: the raw pooled vector');
const noneOai = await post(none, '/v1/embeddings', { input: text });
check(noneOai.status === 400 && noneOai.json?.error?.message?.includes('none'),
    '/v1/embeddings with pooling none is a 400', noneOai.text);
const badNorm = await post(own, '/embedding', { content: text, embd_normalize: 'l2' });
check(badNorm.status === 400 && badNorm.json?.error?.message?.includes("'embd_normalize'"),
    "/embedding: a bad embd_normalize is a 400 naming it", badNorm.text);
const noRank = await post(own, '/v1/rerank', { query, documents: docs });
check(noRank.status === 501, 'a server that is not a reranker answers /v1/rerank with 501', noRank.text);
const codes = await Promise.all([own, cls, mean, none].map(stop));
check(codes.every((c) => c === 0), 'the embedding servers stop cleanly', codes.join(','));

done();
