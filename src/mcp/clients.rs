//! `refgraph mcp-config`: the entry that registers refgraph's stdio MCP server with an
//! assistant client, in that client's own format, and its merge into the client's config
//! file. A merge keeps every other server and setting as it was; a file it cannot read (JSON
//! with comments, a key of the wrong type) is left untouched and the error says what to add by
//! hand.

use std::path::{Path, PathBuf};

/// An MCP client refgraph can be registered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// Claude Code: `.mcp.json` in the project (the file `claude mcp add --scope project`
    /// writes), `mcpServers`.
    ClaudeCode,
    /// Claude Desktop: `claude_desktop_config.json` in the app's settings folder,
    /// `mcpServers`.
    ClaudeDesktop,
    /// Cursor: `~/.cursor/mcp.json`, `mcpServers`.
    Cursor,
    /// VS Code: `.vscode/mcp.json` in the workspace, `servers` with `"type": "stdio"`.
    Vscode,
    /// OpenAI Codex: `~/.codex/config.toml` (or `$CODEX_HOME`), `[mcp_servers.refgraph]`.
    Codex,
}

impl Client {
    pub const ALL: [Client; 5] = [
        Client::ClaudeCode,
        Client::ClaudeDesktop,
        Client::Cursor,
        Client::Vscode,
        Client::Codex,
    ];

    /// The name `--client` takes.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Codex => "codex",
        }
    }

    pub fn parse(name: &str) -> Result<Client, String> {
        Client::ALL
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| {
                format!(
                    "unknown client '{name}'; one of: {}",
                    Client::ALL.map(Client::name).join(", ")
                )
            })
    }

    /// The file `--write` merges into: per project (`cwd`) for Claude Code and VS Code, per
    /// user (`home`, or `codex_home` for Codex) for the others.
    pub fn config_file(self, home: &Path, cwd: &Path, codex_home: Option<&Path>) -> PathBuf {
        match self {
            Client::ClaudeCode => cwd.join(".mcp.json"),
            Client::Vscode => cwd.join(".vscode").join("mcp.json"),
            Client::Cursor => home.join(".cursor").join("mcp.json"),
            Client::Codex => codex_home
                .map(Path::to_path_buf)
                .unwrap_or_else(|| home.join(".codex"))
                .join("config.toml"),
            Client::ClaudeDesktop => {
                let dir = if cfg!(target_os = "macos") {
                    home.join("Library/Application Support/Claude")
                } else if cfg!(windows) {
                    std::env::var_os("APPDATA")
                        .map(PathBuf::from)
                        .unwrap_or_else(|| home.join("AppData/Roaming"))
                        .join("Claude")
                } else {
                    home.join(".config/Claude")
                };
                dir.join("claude_desktop_config.json")
            }
        }
    }

    /// The key that holds the servers.
    fn servers_key(self) -> &'static str {
        match self {
            Client::Vscode => "servers",
            Client::Codex => "mcp_servers",
            _ => "mcpServers",
        }
    }

    fn is_toml(self) -> bool {
        self == Client::Codex
    }

    /// The whole config for a client that has none yet: what `mcp-config` prints.
    pub fn snippet(self, server: &Server) -> String {
        match self.merge(None, server) {
            Ok(m) => m.text,
            Err(_) => unreachable!("an empty config always takes the entry"),
        }
    }

    /// `existing` (the client's config file, if there is one) with the `refgraph` server set to
    /// `server`, every other entry kept.
    pub fn merge(self, existing: Option<&str>, server: &Server) -> Result<Merged, MergeError> {
        let existing = existing.filter(|t| !t.trim().is_empty());
        if self.is_toml() {
            merge_toml(existing, server)
        } else {
            merge_json(self, existing, server)
        }
    }
}

/// How refgraph's stdio server is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    /// The refgraph executable, as an absolute path: clients do not start servers from a shell
    /// with the user's PATH.
    pub command: String,
    pub args: Vec<String>,
    /// `REFGRAPH_DATA` and, when set, `REFGRAPH_MODEL_DIR`: the store and model the commands
    /// that filled them used.
    pub env: Vec<(String, String)>,
}

impl Server {
    fn json(&self, client: Client) -> serde_json::Value {
        let mut entry = serde_json::Map::new();
        if client == Client::Vscode {
            entry.insert("type".into(), "stdio".into());
        }
        entry.insert("command".into(), self.command.clone().into());
        entry.insert("args".into(), self.args.clone().into());
        if !self.env.is_empty() {
            let env: serde_json::Map<String, serde_json::Value> = self
                .env
                .iter()
                .map(|(k, v)| (k.clone(), v.clone().into()))
                .collect();
            entry.insert("env".into(), env.into());
        }
        entry.into()
    }

    /// Claude Code's own command for the same entry, for users who prefer it.
    pub fn claude_add_command(&self, scope: &str) -> String {
        let mut out = format!("claude mcp add --scope {scope} refgraph");
        for (k, v) in &self.env {
            out.push_str(&format!(" --env {k}={}", shell_quote(v)));
        }
        out.push_str(" -- ");
        out.push_str(&shell_quote(&self.command));
        for a in &self.args {
            out.push(' ');
            out.push_str(&shell_quote(a));
        }
        out
    }
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-=:@+,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A merged config and what the merge did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub text: String,
    pub change: Change,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// No refgraph entry was there.
    Added,
    /// A different refgraph entry was replaced.
    Replaced,
    /// The same entry was already there: nothing to write.
    Unchanged,
}

/// Why a config file cannot take the entry: it is left as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("it is not plain {format} ({why})")]
    Unreadable { format: &'static str, why: String },
    #[error("its `{key}` is not a table of servers")]
    WrongShape { key: &'static str },
}

/// Writes a merged config whole or not at all, creating its folder (`.vscode/`).
/// A config that is a symbolic link (a dotfile manager's) is written where it points, and
/// keeps its permissions.
pub fn write_config(target: &Path, text: &str) -> std::io::Result<()> {
    let target = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let permissions = std::fs::metadata(&target).ok().map(|m| m.permissions());
    crate::fsutil::write_atomic(&target, text.as_bytes())?;
    match permissions {
        Some(p) => std::fs::set_permissions(&target, p),
        None => Ok(()),
    }
}

/// A JSON value as read (kept byte for byte) or as refgraph writes it.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Json {
    Kept(Box<serde_json::value::RawValue>),
    Object(indexmap::IndexMap<String, Json>),
    New(serde_json::Value),
}

fn merge_json(
    client: Client,
    existing: Option<&str>,
    server: &Server,
) -> Result<Merged, MergeError> {
    use serde_json::value::RawValue;
    // What refgraph does not change is kept as written: keys in their order, every other
    // value byte for byte.
    type Object = indexmap::IndexMap<String, Box<RawValue>>;
    let key = client.servers_key();
    let unreadable = |e: serde_json::Error| MergeError::Unreadable {
        format: "JSON",
        why: e.to_string(),
    };
    let top: Object = match existing {
        Some(text) => {
            // A document that is JSON but not an object has no place for servers.
            let value: serde_json::Value = serde_json::from_str(text).map_err(unreadable)?;
            if !value.is_object() {
                return Err(MergeError::WrongShape { key });
            }
            serde_json::from_str(text).map_err(unreadable)?
        }
        None => Object::new(),
    };
    let shape = |_| MergeError::WrongShape { key };
    let servers: Object = match top.get(key) {
        Some(raw) => serde_json::from_str(raw.get()).map_err(shape)?,
        None => Object::new(),
    };
    // The keys refgraph sets; any other key of an existing entry (one the user added) stays.
    let ours = match server.json(client) {
        serde_json::Value::Object(m) => m,
        _ => unreachable!("an entry is an object"),
    };
    let old: Option<Object> = servers
        .get("refgraph")
        .and_then(|raw| serde_json::from_str(raw.get()).ok());
    let same = |old: &Object| {
        ours.iter().all(|(k, v)| {
            old.get(k)
                .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
                .as_ref()
                == Some(v)
        })
    };
    let change = match (&old, servers.contains_key("refgraph")) {
        (Some(o), _) if same(o) => Change::Unchanged,
        (_, true) => Change::Replaced,
        (_, false) => Change::Added,
    };
    let mut entry: indexmap::IndexMap<String, Json> = old
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k, Json::Kept(v)))
        .collect();
    for (k, v) in ours {
        entry.insert(k, Json::New(v));
    }
    let mut servers: indexmap::IndexMap<String, Json> = servers
        .into_iter()
        .map(|(k, v)| (k, Json::Kept(v)))
        .collect();
    servers.insert("refgraph".into(), Json::Object(entry));
    let mut top: indexmap::IndexMap<String, Json> =
        top.into_iter().map(|(k, v)| (k, Json::Kept(v))).collect();
    top.insert(key.into(), Json::Object(servers));
    let mut text = serde_json::to_string_pretty(&top).expect("JSON serialises");
    text.push('\n');
    Ok(Merged { text, change })
}

/// A TOML value as comparable text: strings, arrays of them and inline tables of them, the
/// shapes of refgraph's entry, without their layout.
fn canonical(item: &toml_edit::Item) -> Option<String> {
    use toml_edit::Value;
    let plain = |v: &Value| {
        v.as_str()
            .map_or_else(|| v.to_string(), |s| format!("{s:?}"))
    };
    Some(match item.as_value()? {
        Value::Array(a) => a.iter().map(plain).collect::<Vec<_>>().join(","),
        Value::InlineTable(t) => t
            .iter()
            .map(|(k, v)| format!("{k}={}", plain(v)))
            .collect::<Vec<_>>()
            .join(","),
        v => plain(v),
    })
}

fn merge_toml(existing: Option<&str>, server: &Server) -> Result<Merged, MergeError> {
    use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};
    let key = "mcp_servers";
    let mut doc: DocumentMut =
        existing
            .unwrap_or("")
            .parse()
            .map_err(|e: toml_edit::TomlError| MergeError::Unreadable {
                format: "TOML",
                why: e.message().to_string(),
            })?;
    let mut ours: Vec<(&str, Value)> = vec![
        ("command", server.command.as_str().into()),
        (
            "args",
            Value::Array(server.args.iter().map(String::as_str).collect::<Array>()),
        ),
    ];
    if !server.env.is_empty() {
        let mut env = InlineTable::new();
        for (k, v) in &server.env {
            env.insert(k, v.as_str().into());
        }
        ours.push(("env", Value::InlineTable(env)));
    }
    let inline = doc.get(key).is_some_and(Item::is_inline_table);
    let servers = doc
        .entry(key)
        .or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        })
        .as_table_like_mut()
        .ok_or(MergeError::WrongShape { key })?;
    let change = match servers.get_mut("refgraph") {
        // The keys refgraph sets are set; any other key the user added to the entry stays.
        Some(old) => {
            let entry = old
                .as_table_like_mut()
                .ok_or(MergeError::WrongShape { key })?;
            let mut changed = false;
            for (k, v) in ours {
                let v = Item::Value(v);
                if entry.get(k).and_then(canonical) != canonical(&v) {
                    entry.insert(k, v);
                    changed = true;
                }
            }
            if changed {
                Change::Replaced
            } else {
                Change::Unchanged
            }
        }
        None if inline => {
            let mut t = InlineTable::new();
            for (k, v) in ours {
                t.insert(k, v);
            }
            servers.insert("refgraph", Item::Value(Value::InlineTable(t)));
            Change::Added
        }
        None => {
            let mut t = Table::new();
            for (k, v) in ours {
                t.insert(k, Item::Value(v));
            }
            servers.insert("refgraph", Item::Table(t));
            Change::Added
        }
    };
    Ok(Merged {
        text: doc.to_string(),
        change,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Server {
        Server {
            command: "/opt/refgraph/bin/refgraph".into(),
            args: vec!["serve".into()],
            env: vec![(
                "REFGRAPH_DATA".into(),
                "/home/ada/.local/share/refgraph".into(),
            )],
        }
    }

    #[test]
    fn each_client_gets_its_own_format() {
        let s = server();
        let v: serde_json::Value = serde_json::from_str(&Client::ClaudeCode.snippet(&s)).unwrap();
        assert_eq!(v["mcpServers"]["refgraph"]["command"], s.command);
        assert_eq!(v["mcpServers"]["refgraph"]["args"][0], "serve");
        assert_eq!(
            v["mcpServers"]["refgraph"]["env"]["REFGRAPH_DATA"],
            "/home/ada/.local/share/refgraph"
        );
        assert!(v["mcpServers"]["refgraph"].get("type").is_none());
        let v: serde_json::Value = serde_json::from_str(&Client::Vscode.snippet(&s)).unwrap();
        assert_eq!(v["servers"]["refgraph"]["type"], "stdio");
        assert_eq!(v["servers"]["refgraph"]["command"], s.command);
        let t: toml::Table = toml::from_str(&Client::Codex.snippet(&s)).unwrap();
        let entry = &t["mcp_servers"]["refgraph"];
        assert_eq!(entry["command"].as_str(), Some(s.command.as_str()));
        assert_eq!(entry["args"][0].as_str(), Some("serve"));
        assert_eq!(
            entry["env"]["REFGRAPH_DATA"].as_str(),
            Some("/home/ada/.local/share/refgraph")
        );
        assert!(
            Client::Codex
                .snippet(&s)
                .starts_with("[mcp_servers.refgraph]\n")
        );
        assert_eq!(
            s.claude_add_command("user"),
            "claude mcp add --scope user refgraph --env REFGRAPH_DATA=/home/ada/.local/share/refgraph -- /opt/refgraph/bin/refgraph serve"
        );
    }

    #[test]
    fn a_merge_keeps_every_other_entry_and_setting() {
        let s = server();
        let existing = r#"{
  "theme": "dark",
  "mcpServers": {
    "zeta": {"command": "zeta-mcp", "args": ["--port", "1"]},
    "alpha": {"command": "npx", "args": ["-y", "alpha"], "env": {"TOKEN": "x"}}
  },
  "numbers": [1, 2.5]
}"#;
        let m = Client::Cursor.merge(Some(existing), &s).unwrap();
        assert_eq!(m.change, Change::Added);
        let before: serde_json::Value = serde_json::from_str(existing).unwrap();
        let mut after: serde_json::Value = serde_json::from_str(&m.text).unwrap();
        after["mcpServers"]
            .as_object_mut()
            .unwrap()
            .remove("refgraph");
        assert_eq!(before, after, "everything else as it was");
        // Byte for byte, and in the order a person wrote: zeta before alpha, theme first.
        assert!(
            m.text
                .contains(r#""zeta": {"command": "zeta-mcp", "args": ["--port", "1"]}"#),
            "{}",
            m.text
        );
        let zeta = m.text.find("\"zeta\"").unwrap();
        assert!(zeta < m.text.find("\"alpha\"").unwrap());
        assert!(m.text.find("\"theme\"").unwrap() < zeta);
        // Merging again changes nothing; another command replaces the entry.
        assert_eq!(
            Client::Cursor.merge(Some(&m.text), &s).unwrap().change,
            Change::Unchanged
        );
        let moved = Server {
            command: "/usr/local/bin/refgraph".into(),
            ..s.clone()
        };
        let again = Client::Cursor.merge(Some(&m.text), &moved).unwrap();
        assert_eq!(again.change, Change::Replaced);
        assert!(again.text.contains("/usr/local/bin/refgraph"));
        assert!(!again.text.contains("/opt/refgraph"));

        // A key the user added to refgraph's own entry stays when the entry is replaced.
        let mut v: serde_json::Value = serde_json::from_str(&again.text).unwrap();
        v["mcpServers"]["refgraph"]["disabled"] = false.into();
        let edited = serde_json::to_string_pretty(&v).unwrap();
        let m2 = Client::Cursor.merge(Some(&edited), &s).unwrap();
        assert_eq!(m2.change, Change::Replaced);
        let v: serde_json::Value = serde_json::from_str(&m2.text).unwrap();
        assert_eq!(v["mcpServers"]["refgraph"]["disabled"], false);
        assert_eq!(v["mcpServers"]["refgraph"]["command"], s.command);

        let codex = "# my settings\nmodel = \"o4\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\" # keep me\nargs = []\n";
        let m = Client::Codex.merge(Some(codex), &s).unwrap();
        assert_eq!(m.change, Change::Added);
        assert!(m.text.starts_with(codex), "{}", m.text);
        assert!(m.text.contains("[mcp_servers.refgraph]"));
        assert_eq!(
            Client::Codex.merge(Some(&m.text), &s).unwrap().change,
            Change::Unchanged
        );
        // Servers written as an inline table, and a key of the user's in refgraph's entry.
        let inline = "mcp_servers = { docs = { command = \"docs\" } }\n";
        let m = Client::Codex.merge(Some(inline), &s).unwrap();
        let t: toml::Table = toml::from_str(&m.text).unwrap();
        assert_eq!(t["mcp_servers"]["docs"]["command"].as_str(), Some("docs"));
        assert_eq!(
            t["mcp_servers"]["refgraph"]["command"].as_str(),
            Some(s.command.as_str())
        );
        let mine = format!(
            "{}startup_timeout_sec = 30\n",
            Client::Codex.snippet(&moved)
        );
        let m = Client::Codex.merge(Some(&mine), &s).unwrap();
        assert_eq!(m.change, Change::Replaced);
        let t: toml::Table = toml::from_str(&m.text).unwrap();
        assert_eq!(
            t["mcp_servers"]["refgraph"]["startup_timeout_sec"].as_integer(),
            Some(30)
        );
        assert_eq!(
            t["mcp_servers"]["refgraph"]["command"].as_str(),
            Some(s.command.as_str())
        );
    }

    #[test]
    fn a_file_it_cannot_read_is_refused_not_rewritten() {
        let s = server();
        // VS Code allows comments in mcp.json; serde_json does not read them.
        let jsonc = "{\n  // mine\n  \"servers\": {}\n}";
        assert!(matches!(
            Client::Vscode.merge(Some(jsonc), &s),
            Err(MergeError::Unreadable { format: "JSON", .. })
        ));
        assert_eq!(
            Client::ClaudeDesktop.merge(Some(r#"{"mcpServers": []}"#), &s),
            Err(MergeError::WrongShape { key: "mcpServers" })
        );
        assert!(matches!(
            Client::Codex.merge(Some("mcp_servers = 3\n"), &s),
            Err(MergeError::WrongShape { key: "mcp_servers" })
        ));
        assert!(matches!(
            Client::Codex.merge(Some("[broken\n"), &s),
            Err(MergeError::Unreadable { format: "TOML", .. })
        ));
        // An empty file is a fresh one.
        assert_eq!(
            Client::Cursor.merge(Some("\n"), &s).unwrap().change,
            Change::Added
        );
    }
}
