// Writes a copy of a GGUF model with FIM token ids added to its metadata (tokenizer.ggml.
// fim_{pre,suf,mid}_token_id), for the /infill test: no test model has FIM tokens.
//   node gguf-fim.mjs IN.gguf OUT.gguf PRE SUF MID
import { readFileSync, writeFileSync } from 'node:fs';

const [inPath, outPath, ...ids] = process.argv.slice(2);
const buf = readFileSync(inPath);
if (buf.toString('latin1', 0, 4) !== 'GGUF' || buf.readUInt32LE(4) < 2) {
    throw new Error(`${inPath}: not a GGUF v2+ file`);
}
const nTensors = Number(buf.readBigUInt64LE(8));
const nKv = Number(buf.readBigUInt64LE(16));
let off = 24;
const str = () => {
    const n = Number(buf.readBigUInt64LE(off));
    const s = buf.toString('utf8', off + 8, off + 8 + n);
    off += 8 + n;
    return s;
};
const size = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8];  // fixed-size value types
const skip = (type) => {
    if (type === 8) {
        str();
    } else if (type === 9) {
        const t = buf.readUInt32LE(off);
        const n = Number(buf.readBigUInt64LE(off + 4));
        off += 12;
        for (let i = 0; i < n; i++) skip(t);
    } else {
        off += size[type];
    }
};
let alignment = 32;
for (let i = 0; i < nKv; i++) {
    const key = str();
    const type = buf.readUInt32LE(off);
    off += 4;
    if (key === 'general.alignment') alignment = buf.readUInt32LE(off);
    skip(type);
}
const kvEnd = off;
for (let i = 0; i < nTensors; i++) {
    str();
    const nDims = buf.readUInt32LE(off);
    off += 4 + 8 * nDims + 4 + 8;
}
const infoEnd = off;
const dataStart = Math.ceil(infoEnd / alignment) * alignment;

const added = ['fim_pre', 'fim_suf', 'fim_mid'].map((name, i) => {
    const key = Buffer.from(`tokenizer.ggml.${name}_token_id`);
    const kv = Buffer.alloc(8 + key.length + 8);
    kv.writeBigUInt64LE(BigInt(key.length), 0);
    key.copy(kv, 8);
    kv.writeUInt32LE(4, 8 + key.length);  // u32
    kv.writeUInt32LE(Number(ids[i]), 12 + key.length);
    return kv;
});
const head = Buffer.concat([buf.subarray(0, kvEnd), ...added, buf.subarray(kvEnd, infoEnd)]);
head.writeBigUInt64LE(BigInt(nKv + added.length), 16);
const pad = Buffer.alloc((alignment - (head.length % alignment)) % alignment);
writeFileSync(outPath, Buffer.concat([head, pad, buf.subarray(dataStart)]));
