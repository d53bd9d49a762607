//! The HTTP request a method body sends, read from its literals: what links an SDK method to
//! the OpenAPI operation it wraps. Each language turns a call's arguments into [`CallArg`]s;
//! the rules that decide whether the call is a request live here, once for every language.
//!
//! A call is a request when
//! - its callee is named like an HTTP method (`_post`, `get`, `delete`; `_get_api_list` and
//!   `getAPIList` are paged GETs) and its first argument is a path literal
//!   (`self._post("/chat/completions", ...)`, ``this._client.get(`/files/${id}`)``), or
//! - a string argument is an HTTP method and the next one a path literal
//!   (`self._request("post", "/v1/customers", ...)`), or its keywords say so
//!   (`method="POST", url="/v1/calls"`).
//!
//! A path literal starts with `/`; interpolations (`{id}`, `${id}`, `%s`) become parameters.
//! URLs built elsewhere (`cls.class_url()`, `self._uri`) give no request: nothing is guessed.

use crate::model::{Relation, RelationKind};

const METHODS: [&str; 7] = ["get", "post", "put", "patch", "delete", "head", "options"];

/// One argument of a call, as far as the request rules need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallArg {
    /// `method` in `method="POST"`; `None` for a positional argument.
    pub keyword: Option<String>,
    /// The content of a string literal (format fields and interpolations kept as `{...}`),
    /// `None` for anything else.
    pub text: Option<String>,
}

/// A request found in a callable's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestFact {
    /// Upper case: `POST`.
    pub method: String,
    /// As written, interpolations as `{name}`: `/v1/customers/{customer}`.
    pub path: String,
    pub line: usize,
    /// The call, whitespace collapsed.
    pub evidence: String,
}

impl RequestFact {
    /// `POST /v1/customers/{}`: the key OpenAPI operations carry (`rg:endpointKey`).
    pub fn key(&self) -> Option<String> {
        crate::model::endpoint_key(&format!("{} {}", self.method, self.path))
    }

    /// The `requests` relation of `subject`: the endpoint key is its object, the path as
    /// written its name.
    pub fn relation(&self, subject: &str, file: &str) -> Option<Relation> {
        Some(Relation {
            subject: subject.to_string(),
            kind: RelationKind::Requests,
            name: Some(format!("{} {}", self.method, self.path)),
            object: self.key()?,
            evidence: self.evidence.clone(),
            file: file.to_string(),
            line: self.line,
        })
    }
}

/// Whether a body's source can hold a path literal at all: a quote or backtick right before
/// a `/`. Most bodies cannot, and skipping them keeps the query off the ingest's hot path.
pub fn may_hold_path(body: &[u8]) -> bool {
    body.windows(2)
        .any(|w| matches!(w[0], b'"' | b'\'' | b'`') && w[1] == b'/')
}

/// The HTTP method a callee's name stands for: `_post` -> `POST`, `getAPIList` -> `GET`.
fn method_of_callee(callee: &str) -> Option<String> {
    let name = callee.trim_start_matches('_').to_ascii_lowercase();
    if METHODS.contains(&name.as_str()) {
        return Some(name.to_ascii_uppercase());
    }
    matches!(name.as_str(), "get_api_list" | "getapilist").then(|| "GET".to_string())
}

fn method_word(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    METHODS
        .contains(&lower.as_str())
        .then(|| lower.to_ascii_uppercase())
}

/// `/v1/customers/%s?expand=x` -> `/v1/customers/{}`; `/files/${id}` -> `/files/{id}`.
/// `None` unless the text is a path: `/` first, no whitespace, no scheme.
pub fn normalize_path(text: &str) -> Option<String> {
    let text = text.split(['?', '#']).next().unwrap_or("");
    if !text.starts_with('/')
        || text.starts_with("//")
        || text.contains("://")
        || text.chars().any(char::is_whitespace)
        || !text.chars().any(|c| c.is_ascii_alphabetic())
    {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' if chars.peek() == Some(&'{') => {}
            '%' => {
                // printf-style: `%s`, `%d`, `%(name)s`.
                if chars.peek() == Some(&'(') {
                    let name: String = chars.by_ref().skip(1).take_while(|c| *c != ')').collect();
                    chars.next();
                    out.push_str(&format!("{{{name}}}"));
                } else if chars.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                    chars.next();
                    out.push_str("{}");
                } else {
                    out.push('%');
                }
            }
            c => out.push(c),
        }
    }
    // Braces must balance, or the text is not a template this reads.
    let mut depth = 0i32;
    for c in out.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    (depth == 0).then_some(out)
}

/// The (method, path) a call sends, when its callee and arguments say so.
pub fn request_of(callee: &str, args: &[CallArg]) -> Option<(String, String)> {
    let positional: Vec<Option<&str>> = args
        .iter()
        .filter(|a| a.keyword.is_none())
        .map(|a| a.text.as_deref())
        .collect();
    let keyword = |names: &[&str]| {
        args.iter()
            .find(|a| a.keyword.as_deref().is_some_and(|k| names.contains(&k)))
            .and_then(|a| a.text.as_deref())
    };
    let path_keyword = keyword(&["path", "url", "uri"]).and_then(normalize_path);
    if let Some(method) = method_of_callee(callee) {
        let path = positional
            .first()
            .copied()
            .flatten()
            .and_then(normalize_path)
            .or(path_keyword.clone());
        if let Some(path) = path {
            return Some((method, path));
        }
    }
    for pair in positional.windows(2) {
        if let (Some(m), Some(p)) = (
            pair[0].and_then(method_word),
            pair[1].and_then(normalize_path),
        ) {
            return Some((m, p));
        }
    }
    let method = keyword(&["method"]).and_then(method_word)?;
    let path = path_keyword.or_else(|| {
        positional
            .first()
            .copied()
            .flatten()
            .and_then(normalize_path)
    })?;
    Some((method, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(t: &str) -> CallArg {
        CallArg {
            keyword: None,
            text: Some(t.into()),
        }
    }

    fn other() -> CallArg {
        CallArg {
            keyword: None,
            text: None,
        }
    }

    fn kw(k: &str, t: Option<&str>) -> CallArg {
        CallArg {
            keyword: Some(k.into()),
            text: t.map(str::to_string),
        }
    }

    fn req(m: &str, p: &str) -> Option<(String, String)> {
        Some((m.to_string(), p.to_string()))
    }

    #[test]
    fn calls_named_like_methods() {
        assert_eq!(
            request_of("_post", &[pos("/chat/completions"), kw("body", None)]),
            req("POST", "/chat/completions")
        );
        assert_eq!(
            request_of("get", &[pos("/files/${fileId}"), other()]),
            req("GET", "/files/{fileId}")
        );
        assert_eq!(
            request_of("getAPIList", &[pos("/files"), other()]),
            req("GET", "/files")
        );
        assert_eq!(
            request_of("_get_api_list", &[pos("/files")]),
            req("GET", "/files")
        );
        // The path must be the first argument: `get(key, "/default")` is a lookup.
        assert_eq!(request_of("get", &[other(), pos("/x")]), None);
        assert_eq!(request_of("get", &[pos("name")]), None);
        assert_eq!(request_of("fetch", &[pos("/files")]), None);
    }

    #[test]
    fn method_then_path_arguments_and_keywords() {
        assert_eq!(
            request_of(
                "_request",
                &[
                    pos("delete"),
                    pos("/v1/customers/{customer}"),
                    kw("params", None)
                ]
            ),
            req("DELETE", "/v1/customers/{customer}")
        );
        assert_eq!(
            request_of("_static_request", &[pos("post"), other()]),
            None,
            "a URL built by a call is not read"
        );
        assert_eq!(
            request_of(
                "request",
                &[
                    kw("method", Some("POST")),
                    kw("uri", Some("/2010-04-01/Calls.json"))
                ]
            ),
            req("POST", "/2010-04-01/Calls.json")
        );
        assert_eq!(request_of("log", &[pos("get"), pos("hello")]), None);
    }

    #[test]
    fn paths_normalise_and_reject_non_paths() {
        assert_eq!(
            normalize_path("/v1/customers/%s/sources?limit=3").as_deref(),
            Some("/v1/customers/{}/sources")
        );
        assert_eq!(
            normalize_path("/v1/x/%(id)s").as_deref(),
            Some("/v1/x/{id}")
        );
        assert_eq!(
            normalize_path("/files/${id}/content").as_deref(),
            Some("/files/{id}/content")
        );
        for bad in ["", "v1/x", "//cdn.example.com/x", "/a b", "/", "/{", "/}{"] {
            assert_eq!(normalize_path(bad), None, "{bad:?}");
        }
        let fact = RequestFact {
            method: "DELETE".into(),
            path: "/v1/customers/{customer}".into(),
            line: 3,
            evidence: String::new(),
        };
        assert_eq!(fact.key().as_deref(), Some("DELETE /v1/customers/{}"));
        assert!(may_hold_path(b"self._get(f\"/files/{id}\")"));
        assert!(!may_hold_path(b"return a / b"));
    }
}
