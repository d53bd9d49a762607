//! The code-aware tokenizer of the text index.
//!
//! An identifier is kept whole and also split, so `client.storage.buckets.create`, `upload_file`
//! and `getObject` match both the exact name and its words: `upload_file` gives `upload_file`,
//! `upload`, `file`. Runs of Han, Kana or Hangul become overlapping bigrams (`上传文件` gives
//! `上传`, `传文`, `文件`), the usual way to index CJK text without a dictionary. Everything is
//! lower-cased; English stemming is a filter added after this tokenizer.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Name under which the analyzer is registered in the index.
pub(crate) const CODE_TOKENIZER: &str = "refgraph_code";

#[derive(Clone, Default)]
pub(crate) struct CodeTokenizer;

pub(crate) struct VecTokenStream {
    tokens: Vec<Token>,
    next: usize,
}

impl TokenStream for VecTokenStream {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }
    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = VecTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream {
        VecTokenStream {
            tokens: tokenize(text),
            next: 0,
        }
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FFFF) // CJK extensions B..
}

fn is_word(c: char) -> bool {
    (c.is_alphanumeric() || c == '_') && !is_cjk(c)
}

/// Every token of `text`, in order; positions count words, so the parts of an identifier share
/// the identifier's position.
pub(crate) fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut position = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let end_of = |i: usize| chars.get(i).map_or(text.len(), |&(o, _)| o);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].1;
        if is_cjk(c) {
            let start = i;
            while i < chars.len() && is_cjk(chars[i].1) {
                i += 1;
            }
            if i - start == 1 {
                push(&mut out, text, chars[start].0, end_of(i), position);
                position += 1;
            }
            for (j, &(offset, _)) in chars.iter().enumerate().take(i - 1).skip(start) {
                push(&mut out, text, offset, end_of(j + 2), position);
                position += 1;
            }
        } else if is_word(c) {
            // An identifier: word characters joined by single dots (`a.b.c`), no trailing dot.
            let start = i;
            while i < chars.len()
                && (is_word(chars[i].1)
                    || (chars[i].1 == '.'
                        && i > start
                        && chars.get(i + 1).is_some_and(|&(_, n)| is_word(n))))
            {
                i += 1;
            }
            identifier(&mut out, text, chars[start].0, end_of(i), position);
            position += 1;
        } else {
            i += 1;
        }
    }
    out
}

/// The whole identifier, then its dotted segments, then each segment's words.
fn identifier(out: &mut Vec<Token>, text: &str, from: usize, to: usize, position: usize) {
    let whole = &text[from..to];
    push(out, text, from, to, position);
    let mut seen = vec![whole.to_lowercase()];
    let mut offset = from;
    for segment in whole.split('.') {
        let seg_from = offset;
        offset += segment.len() + 1;
        for (a, b) in std::iter::once((0, segment.len())).chain(words(segment)) {
            let lower = segment[a..b].to_lowercase();
            if !lower.is_empty() && !seen.contains(&lower) {
                seen.push(lower);
                push(out, text, seg_from + a, seg_from + b, position);
            }
        }
    }
}

/// Byte ranges of the words of one identifier segment: split at `_`, at lower→upper humps
/// (`getObject`), before the last capital of an acronym (`HTTPServer` → `HTTP`, `Server`), and
/// between letters and digits only where a capital follows (`utf8` stays whole).
fn words(segment: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = segment.char_indices().collect();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (k, &(o, c)) in chars.iter().enumerate() {
        if c == '_' {
            if let Some(s) = start.take() {
                out.push((s, o));
            }
            continue;
        }
        let Some(s) = start else {
            start = Some(o);
            continue;
        };
        let prev = chars[k - 1].1;
        let next = chars.get(k + 1).map(|&(_, n)| n);
        let hump = c.is_uppercase()
            && (prev.is_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_uppercase() && next.is_some_and(|n| n.is_lowercase())));
        if hump {
            out.push((s, o));
            start = Some(o);
        }
    }
    if let Some(s) = start {
        out.push((s, segment.len()));
    }
    if out.len() == 1 { Vec::new() } else { out }
}

fn push(out: &mut Vec<Token>, text: &str, from: usize, to: usize, position: usize) {
    out.push(Token {
        offset_from: from,
        offset_to: to,
        position,
        text: text[from..to].to_lowercase(),
        position_length: 1,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: &[&str]) {
        let got: Vec<String> = tokenize(text).into_iter().map(|t| t.text).collect();
        assert_eq!(got, expect, "tokens of {text:?}");
    }

    #[test]
    fn identifiers_are_kept_whole_and_split() {
        check("upload_file", &["upload_file", "upload", "file"]);
        check("getObject", &["getobject", "get", "object"]);
        check("HTTPServer", &["httpserver", "http", "server"]);
        check("utf8 decode", &["utf8", "decode"]);
        check(
            "client.storage.buckets.create",
            &[
                "client.storage.buckets.create",
                "client",
                "storage",
                "buckets",
                "create",
            ],
        );
        check(
            "Call s3.putObject(params).",
            &[
                "call",
                "s3.putobject",
                "s3",
                "putobject",
                "put",
                "object",
                "params",
            ],
        );
    }

    #[test]
    fn prose_is_words() {
        check(
            "How do I retry a failed upload?",
            &["how", "do", "i", "retry", "a", "failed", "upload"],
        );
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        check("上传文件", &["上传", "传文", "文件"]);
        check(
            "用 upload_file 上传",
            &["用", "upload_file", "upload", "file", "上传"],
        );
    }

    #[test]
    fn offsets_point_into_the_text() {
        let text = "x getObject 上传文件";
        for t in tokenize(text) {
            assert_eq!(text[t.offset_from..t.offset_to].to_lowercase(), t.text);
        }
    }
}
