"""The classic Python RAG pipeline, as the peer of refgraph's concept search in the search bench.

BM25 from `rank_bm25` and MiniLM sentence vectors through `onnxruntime` + `numpy`, fused with
reciprocal-rank fusion: what a team builds in an afternoon. It gets exactly what refgraph's index
gets: the chunks that `refgraph chunks` prints (BM25 over title, section path and text; vectors
from `embed_text`), the same model files (`refgraph model install`), the same queries.

    python rag_baseline.py CHUNKS.jsonl QUERIES.json MODEL_DIR [ROUNDS]

QUERIES.json is a list of {query, package, version, answers}; `answers` may be absent (latency
only) or empty (a query that should find nothing: a hit when nothing is returned, which this
pipeline, having no relevance threshold, never achieves). Prints one JSON object: indexing time,
per-query latencies in milliseconds (query embedding included) for each round of all queries,
and per query whether the top 5 held an answer (null when not judged), for two ways of searching
the same index: with refgraph's tricks (score only the release asked for), and under "classic"
as such a pipeline is usually written (score the whole corpus, then keep the release's chunks).
"""

import json
import re
import sys
import time

import numpy as np
import onnxruntime as ort
from rank_bm25 import BM25Okapi
from tokenizers import Tokenizer

BATCH = 32
MAX_TOKENS = 256
K = 60
WEIGHTS = (0.5, 0.3)  # BM25, vectors: refgraph's defaults for the same two rankings
DEPTH = 50


def words(text):
    return re.findall(r"\w+", text.lower())


class Embedder:
    def __init__(self, model_dir):
        self.tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
        self.tok.enable_truncation(MAX_TOKENS)
        self.tok.enable_padding()
        self.sess = ort.InferenceSession(
            f"{model_dir}/model.onnx", providers=["CPUExecutionProvider"]
        )
        self.inputs = {i.name for i in self.sess.get_inputs()}

    def embed(self, texts):
        enc = self.tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self.sess.run(None, feed)[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def main():
    chunks_path, queries_path, model_dir = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    chunks = [json.loads(line) for line in open(chunks_path)]
    queries = json.load(open(queries_path))
    embedder = Embedder(model_dir)

    t0 = time.perf_counter()
    # The fields refgraph's BM25 ranks: title, entity names, section path, text.
    bm25 = BM25Okapi(
        [
            words(
                " ".join(
                    [c["title"], c["section_path"], c["text"]]
                    + [e["qualified_name"] for e in c["entities"]]
                )
            )
            for c in chunks
        ]
    )
    t_bm25 = time.perf_counter() - t0
    # Identical texts are embedded once, as refgraph does.
    # A chunk with an empty embed_text (a symbol without documentation) gets no vector and
    # takes no part in the vector ranking, as in refgraph.
    unique = {}
    for c in chunks:
        if c["embed_text"]:
            unique.setdefault(c["embed_text"], len(unique))
    texts = list(unique)
    vecs = np.zeros((len(texts), 384), dtype=np.float32)
    # Shortest first, as refgraph does: batches of similar length pad less (3x faster here).
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for b in range(0, len(order), BATCH):
        batch = order[b : b + BATCH]
        vecs[batch] = embedder.embed([texts[i] for i in batch])
    matrix = np.zeros((len(chunks), vecs.shape[1]), dtype=np.float32)
    for i, c in enumerate(chunks):
        if c["embed_text"]:
            matrix[i] = vecs[unique[c["embed_text"]]]
    has_vector = np.array([bool(c["embed_text"]) for c in chunks])
    index_s = time.perf_counter() - t0

    # Like refgraph, score only the chunks of the release asked for (BM25 keeps the
    # corpus-wide IDF, as tantivy's does).
    by_release = {}
    for i, c in enumerate(chunks):
        by_release.setdefault(f"{c['package']}@{c['version']}", []).append(i)
    by_release = {r: np.array(ids) for r, ids in by_release.items()}

    def fuse(ids, scores, sims, has):
        fused = {}
        # A chunk sharing no word with the query is not a BM25 hit.
        for w, s, hit in ((WEIGHTS[0], scores, scores > 0), (WEIGHTS[1], sims, has)):
            depth = min(DEPTH, len(s))
            top = np.argpartition(-s, depth - 1)[:depth]
            top = top[np.argsort(-s[top])]
            for rank, t in enumerate(t for t in top if hit[t]):
                i = int(ids[t])
                fused[i] = fused.get(i, 0.0) + w / (K + rank + 1)
        return sorted(fused, key=fused.get, reverse=True)[:5]

    def search(q):
        ids = by_release[f"{q['package']}@{q['version']}"]
        scores = np.array(bm25.get_batch_scores(words(q["query"]), ids.tolist()))
        qv = embedder.embed([q["query"]])[0]
        sims = np.where(has_vector[ids], matrix[ids] @ qv, -np.inf)
        return fuse(ids, scores, sims, has_vector[ids])

    # The classic pipeline: rank_bm25 scores the whole corpus (`get_scores`), the vectors are
    # all compared, and the release asked for is filtered afterwards.
    all_ids = np.arange(len(chunks))
    masks = {}
    for r, ids in by_release.items():
        m = np.zeros(len(chunks), dtype=bool)
        m[ids] = True
        masks[r] = m

    def search_classic(q):
        mask = masks[f"{q['package']}@{q['version']}"]
        scores = np.where(mask, np.array(bm25.get_scores(words(q["query"]))), 0.0)
        qv = embedder.embed([q["query"]])[0]
        has = has_vector & mask
        sims = np.where(has, matrix @ qv, -np.inf)
        return fuse(all_ids, scores, sims, has)

    def measure(search):
        rounds_ms, verdicts = [], []
        for r in range(rounds):
            latencies = []
            for q in queries:
                start = time.perf_counter()
                best = search(q)
                latencies.append((time.perf_counter() - start) * 1000)
                if r > 0:
                    continue
                if "answers" not in q:
                    verdicts.append(None)
                elif not q["answers"]:
                    verdicts.append(not best)
                else:
                    names = [e["qualified_name"] for i in best for e in chunks[i]["entities"]]
                    verdicts.append(
                        any(n == a or n.startswith(a + ".") for n in names for a in q["answers"])
                    )
            rounds_ms.append(latencies)
        return rounds_ms, verdicts

    rounds_ms, verdicts = measure(search)
    classic_ms, classic_verdicts = measure(search_classic)

    print(
        json.dumps(
            {
                "chunks": len(chunks),
                "embedded": len(texts),
                "index_s": index_s,
                "bm25_index_s": t_bm25,
                "latencies_ms": rounds_ms,
                "verdicts": verdicts,
                "classic": {"latencies_ms": classic_ms, "verdicts": classic_verdicts},
            }
        )
    )


if __name__ == "__main__":
    main()
