//! Weighted reciprocal rank fusion of the three rankings, the name ranking, and the bar a hit
//! must clear to be called relevant.

use std::collections::HashMap;

use tantivy::tokenizer::{Language, StopWordFilter, TextAnalyzer, TokenStream};

use super::{HitRanks, tokenizer};

/// Weights and limits of the fusion; the defaults are the ones the labelled query set was
/// tuned with (see `tests/it/search.rs`).
#[derive(Debug, Clone)]
pub struct FusionConfig {
    pub bm25_weight: f32,
    pub vector_weight: f32,
    pub name_weight: f32,
    /// The `k` of reciprocal rank fusion: larger flattens the advantage of the top ranks.
    pub k: f32,
    /// How deep each ranking goes before fusion.
    pub candidates: usize,
    /// A hit whose only support is its vector needs at least this cosine similarity.
    pub min_cosine: f32,
    /// A hit whose only support is BM25 needs at least this share of the query's words.
    pub min_coverage: f32,
    /// A BM25 hit counts in proportion to its share of the query's words to this power.
    pub trust_power: f32,
    /// The share of a relevant hit's score that goes to the callables taking what it is
    /// about (a class, a property's class, an OpenAPI schema), split evenly among them.
    pub lift: f32,
    /// Abstention: a search whose best vector match has a cosine below `abstain_cosine` and
    /// whose query has at least `abstain_unmatched` of its content words held by no chunk in
    /// reach answers "nothing relevant" ([`FusionConfig::abstains`]). `abstain_cosine=0`
    /// (the default) turns it off.
    pub abstain_cosine: f32,
    pub abstain_unmatched: f32,
}

impl Default for FusionConfig {
    fn default() -> Self {
        FusionConfig {
            bm25_weight: 0.5,
            vector_weight: 0.3,
            name_weight: 0.2,
            k: 60.0,
            candidates: 50,
            min_cosine: 0.2,
            min_coverage: 0.5,
            trust_power: 2.0,
            lift: 0.5,
            // Off. Chosen on the development half of tests/search_unseen.jsonl, 0.44 and 0.4
            // answered half its negatives "nothing relevant" for one answered question lost,
            // but on the validation half it caught no further negative and lost a question,
            // and on the test half it caught 3 of 6 negatives and lost 6 answered questions
            // (BENCHMARKS.md). Turn it on with `--fusion abstain_cosine=0.44`.
            abstain_cosine: 0.0,
            abstain_unmatched: 0.4,
        }
    }
}

impl FusionConfig {
    /// `bm25=0.5,vector=0.3,names=0.2,k=60,candidates=50,min_cosine=0.2,min_coverage=0.5,
    /// trust_power=2,lift=0.5,abstain_cosine=0,abstain_unmatched=0.4`, any subset, over
    /// the defaults.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut c = FusionConfig::default();
        for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("'{pair}' is not KEY=VALUE"))?;
            let number: f32 = value
                .trim()
                .parse()
                .ok()
                .filter(|v: &f32| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("'{value}' is not a number of 0 or more (in '{pair}')"))?;
            match key.trim() {
                "bm25" => c.bm25_weight = number,
                "vector" => c.vector_weight = number,
                "names" => c.name_weight = number,
                "k" => c.k = number,
                "candidates" => c.candidates = (number as usize).max(1),
                "min_cosine" => c.min_cosine = number,
                "min_coverage" => c.min_coverage = number,
                "trust_power" => c.trust_power = number,
                "lift" => c.lift = number,
                "abstain_cosine" => c.abstain_cosine = number,
                "abstain_unmatched" => c.abstain_unmatched = number,
                other => {
                    return Err(format!(
                        "unknown key '{other}'; keys: bm25, vector, names, k, candidates, min_cosine, min_coverage, trust_power, lift, abstain_cosine, abstain_unmatched"
                    ));
                }
            }
        }
        Ok(c)
    }
}

/// The query as the rankings see it.
pub(crate) struct QueryTerms {
    /// Content words, stemmed as the index stems them (stop words dropped), deduplicated.
    pub stemmed: Vec<String>,
    /// The query word each of the query's own stemmed words came from, as written: one per
    /// word of `stemmed` up to the synonym expansions, which follow them.
    pub surface: Vec<String>,
    /// Identifiers of the query, lower-cased, for the name ranking: words shaped like code
    /// (`upload_file`, `getObject`, `a.b`), or every word of a query of one or two words.
    pub names: Vec<String>,
    /// Weaker words that stand for a query word (another sense of a translated word, the long
    /// form of an abbreviation): `(stemmed word, index in stemmed)`. A chunk holding one covers
    /// that query word; BM25 counts it at [`ALTERNATIVE_WEIGHT`].
    pub alternatives: Vec<(String, usize)>,
}

/// How much an alternative word counts in BM25, against a word of the query.
pub(crate) const ALTERNATIVE_WEIGHT: f32 = 0.5;

/// Words that carry no topic in a question ("how do I ..."): dropped from queries, kept in
/// the index.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "being", "but", "by", "can", "could", "did", "do", "does", "doing", "done",
    "each", "for", "from", "get", "got", "had", "has", "have", "having", "how", "i", "if", "in",
    "into", "is", "it", "its", "just", "let", "like", "make", "me", "might", "more", "most",
    "much", "must", "my", "need", "no", "not", "of", "off", "on", "once", "one", "only", "or",
    "other", "our", "out", "own", "please", "same", "should", "so", "some", "such", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "to",
    "too", "up", "us", "use", "using", "very", "want", "was", "way", "we", "were", "what", "when",
    "where", "whether", "which", "while", "who", "why", "will", "with", "without", "would", "you",
    "your",
];

fn query_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(tokenizer::CodeTokenizer)
        .filter(StopWordFilter::remove(
            STOP_WORDS.iter().map(|w| w.to_string()),
        ))
        .filter(tantivy::tokenizer::Stemmer::new(Language::English))
        .build()
}

pub(crate) fn analyze(text: &str, analyzer: &mut TextAnalyzer) -> Vec<String> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        let t = &stream.token().text;
        if !out.contains(t) {
            out.push(t.clone());
        }
    }
    out
}

pub(crate) fn query_terms(
    query: &str,
    expansions: &[String],
    alternatives: &[(String, Vec<String>)],
) -> QueryTerms {
    let mut analyzer = query_analyzer();
    let mut stemmed = analyze(query, &mut analyzer);
    let mut surface = vec![String::new(); stemmed.len()];
    for w in query.split_whitespace() {
        for t in analyze(w, &mut analyzer) {
            if let Some(i) = stemmed.iter().position(|s| *s == t)
                && surface[i].is_empty()
            {
                surface[i] = w
                    .trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .to_string();
            }
        }
    }
    for (s, t) in surface.iter_mut().zip(&stemmed) {
        if s.is_empty() {
            s.clone_from(t);
        }
    }
    // Synonym expansions first: they count fully, so an alternative never repeats one.
    for e in expansions {
        for t in analyze(e, &mut analyzer) {
            if !stemmed.contains(&t) {
                stemmed.push(t);
            }
        }
    }
    let mut alts: Vec<(String, usize)> = Vec::new();
    for (word, others) in alternatives {
        // Attached to the word's first content word; a word the query lost to stop words
        // takes none.
        let Some(at) = analyze(word, &mut analyzer)
            .first()
            .and_then(|w| stemmed.iter().position(|s| s == w))
        else {
            continue;
        };
        for o in others {
            for t in analyze(o, &mut analyzer) {
                if !stemmed.contains(&t) && !alts.iter().any(|(a, _)| *a == t) {
                    alts.push((t, at));
                }
            }
        }
    }
    let mut names: Vec<String> = Vec::new();
    let words: Vec<&str> = query.split_whitespace().collect();
    let short_query = words.len() <= 2;
    for w in words
        .iter()
        .copied()
        .chain(expansions.iter().map(String::as_str))
    {
        let w = w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
        let w = w.strip_suffix("()").unwrap_or(w);
        let shaped = w.contains(['_', '.', ':'])
            || w.chars().skip(1).any(|c| c.is_uppercase()) && w.chars().any(|c| c.is_lowercase());
        if (shaped || short_query || expansions.iter().any(|e| e == w))
            && !w.is_empty()
            && !names.contains(&w.to_lowercase())
        {
            names.push(w.to_lowercase());
        }
    }
    QueryTerms {
        stemmed,
        surface,
        names,
        alternatives: alts,
    }
}

/// The name-ranking keys of an entity, as indexed in the `name_keys` field: its whole
/// qualified name scores 3, its export path or `Class.member` 2, its short name 1. A query
/// name matches a key exactly (lower-cased); the best level a chunk's entities reach is its
/// score.
pub(crate) fn name_keys(qualified_name: &str) -> Vec<String> {
    let q = qualified_name.to_lowercase();
    let path = q.rsplit(':').next().unwrap_or(&q);
    // `Class.member`: the last two dotted segments of the path.
    let member = path
        .rmatch_indices('.')
        .nth(1)
        .map_or(path, |(i, _)| &path[i + 1..]);
    let short = super::chunks::short_name(&q);
    vec![
        name_key(3, &q),
        name_key(2, path),
        name_key(2, member),
        name_key(1, short),
    ]
}

/// `3\u{1}click.core.command`: one indexed term per level and name.
pub(crate) fn name_key(level: u8, name: &str) -> String {
    format!("{level}\u{1}{name}")
}

/// The query names the name ranking looks up: three characters or more, not only stop words.
pub(crate) fn ranked_names(terms: &QueryTerms) -> Vec<&String> {
    let mut analyzer = query_analyzer();
    terms
        .names
        .iter()
        .filter(|n| n.len() >= 3 && !analyze(n, &mut analyzer).is_empty())
        .collect()
}

impl FusionConfig {
    /// Weighted reciprocal rank fusion: each ranking adds `weight / (k + rank)`. A BM25 hit's
    /// share is scaled by `bm25_trust` (the square of the share of the query's words it holds):
    /// a chunk that matched two incidental words of a five-word question counts for 0.16 and
    /// does not outvote the vectors; a chunk holding every word counts fully.
    pub(crate) fn fuse(
        &self,
        bm25: &[usize],
        bm25_trust: &[f32],
        vector: &[usize],
        names: &[usize],
    ) -> Vec<(usize, f32)> {
        let mut scores: HashMap<usize, f32> = HashMap::new();
        for (list, w) in [
            (bm25, self.bm25_weight),
            (vector, self.vector_weight),
            (names, self.name_weight),
        ] {
            let trusted = std::ptr::eq(list, bm25);
            for (r, &i) in list.iter().enumerate() {
                let trust = if trusted {
                    bm25_trust.get(r).copied().unwrap_or(1.0)
                } else {
                    1.0
                };
                *scores.entry(i).or_default() += w * trust / (self.k + r as f32 + 1.0);
            }
        }
        let mut out: Vec<(usize, f32)> = scores.into_iter().collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }

    /// Whether a search should answer "nothing relevant" however its hits rank: a good share
    /// of the query's words appear nowhere in the releases searched, and no chunk is close in
    /// meaning. Either alone is common in a question that has an answer (a paraphrase in the
    /// asker's words; a terse docstring), both together rarely. Never for a query that names
    /// an entity, nor without vectors (nothing then says how close the best chunk is).
    pub(crate) fn abstains(&self, c: &super::Confidence) -> bool {
        !c.named
            && c.words > 0
            && c.best_cosine.is_some_and(|b| b < self.abstain_cosine)
            && c.unmatched as f32 >= self.abstain_unmatched * c.words as f32
    }

    /// Whether a hit is worth showing: its entity is named in the query, its vector is close
    /// enough, or it holds enough of the query's words.
    pub(crate) fn relevant(&self, ranks: &HitRanks, used_vectors: bool) -> bool {
        if ranks.name_rank.is_some() || ranks.lifted.is_some() {
            return true;
        }
        if used_vectors && ranks.cosine.is_some_and(|c| c >= self.min_cosine) {
            return true;
        }
        ranks.bm25_rank.is_some() && ranks.coverage.is_some_and(|c| c >= self.min_coverage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_specs_override_the_defaults_and_reject_nonsense() {
        let c = FusionConfig::parse("bm25=0.6, vector=0.4,k=30").unwrap();
        assert_eq!((c.bm25_weight, c.vector_weight, c.k), (0.6, 0.4, 30.0));
        assert_eq!(c.name_weight, 0.2);
        assert!(FusionConfig::parse("").is_ok());
        for bad in ["bm25", "bm25=x", "weight=1", "k=-1"] {
            assert!(FusionConfig::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn abstention_needs_unknown_words_and_a_far_best_chunk_and_is_off_by_default() {
        let on = FusionConfig::parse("abstain_cosine=0.44").unwrap();
        let far = crate::index::Confidence {
            words: 6,
            unmatched: 3,
            best_cosine: Some(0.41),
            ..Default::default()
        };
        assert!(on.abstains(&far));
        assert!(!FusionConfig::default().abstains(&far), "off by default");
        let close = crate::index::Confidence {
            best_cosine: Some(0.52),
            ..far
        };
        let known_words = crate::index::Confidence {
            unmatched: 2,
            ..far
        };
        let named = crate::index::Confidence { named: true, ..far };
        let no_vectors = crate::index::Confidence {
            best_cosine: None,
            ..far
        };
        for c in [close, known_words, named, no_vectors] {
            assert!(!on.abstains(&c), "{c:?}");
        }
    }

    #[test]
    fn fusion_adds_weighted_reciprocal_ranks() {
        let f = FusionConfig::default();
        let fused = f.fuse(&[1, 2], &[1.0, 1.0], &[2, 3], &[]);
        // 2 is second in BM25 and first in vectors: 0.5/62 + 0.3/61 beats 1's 0.5/61.
        assert_eq!(fused[0].0, 2);
        assert_eq!(fused[1].0, 1);
        assert_eq!(fused[2].0, 3);
        assert!((fused[0].1 - (0.5 / 62.0 + 0.3 / 61.0)).abs() < 1e-6);
        // A BM25 hit holding a fifth of the query's words counts for a fifth.
        let weak = f.fuse(&[1], &[0.2], &[2], &[]);
        assert_eq!(weak[0].0, 2);
    }

    #[test]
    fn names_come_from_identifiers_or_short_queries() {
        let t = query_terms("how do I call upload_file on getObject results", &[], &[]);
        assert_eq!(t.names, ["upload_file", "getobject"]);
        assert_eq!(query_terms("confirm", &[], &[]).names, ["confirm"]);
        assert!(
            query_terms("open a web page in the browser", &[], &[])
                .names
                .is_empty()
        );
    }

    #[test]
    fn query_terms_drop_stop_words_and_keep_identifiers() {
        let t = query_terms("How do I retry a failed upload_file?", &[], &[]);
        assert!(t.stemmed.contains(&"retri".to_string()), "{:?}", t.stemmed);
        assert!(
            !t.stemmed
                .iter()
                .any(|s| ["a", "do", "how", "i"].contains(&s.as_str())),
            "{:?}",
            t.stemmed
        );
        assert!(
            t.names.contains(&"upload_file".to_string()),
            "{:?}",
            t.names
        );
    }
}
