//! `refgraph mcp-config` (issue 50, item 5): each client's entry, printed and merged into the
//! client's config file keeping what is there, and an entry that really starts a server that
//! answers over stdio.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::support::sample;

struct Setup {
    data: tempfile::TempDir,
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let s = Setup {
            data: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        };
        let out = s.run(&[
            "ingest",
            sample("acme-storage-1.0.0").to_str().unwrap(),
            "--package",
            "pkg:pypi/acme-storage",
            "--version",
            "1.0.0",
            "--no-index",
        ]);
        assert!(out.status.success(), "{out:?}");
        s
    }

    /// refgraph in the project folder, with a home of its own.
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_refgraph"))
            .arg("--data-dir")
            .arg(self.data.path())
            .args(args)
            .current_dir(self.project.path())
            .env("HOME", self.home.path())
            .env_remove("CODEX_HOME")
            .env_remove("REFGRAPH_MODEL_DIR")
            .output()
            .unwrap()
    }

    fn config(&self, client: &str) -> String {
        let out = self.run(&["mcp-config", "--client", client]);
        assert!(out.status.success(), "{client}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }
}

/// The refgraph entry of a printed or written config: (command, args, env).
fn entry(client: &str, text: &str) -> (String, Vec<String>, Vec<(String, String)>) {
    let v: Value = if client == "codex" {
        serde_json::to_value(toml::from_str::<toml::Table>(text).unwrap()).unwrap()
    } else {
        serde_json::from_str(text).unwrap()
    };
    let key = match client {
        "codex" => "mcp_servers",
        "vscode" => "servers",
        _ => "mcpServers",
    };
    let e = &v[key]["refgraph"];
    if client == "vscode" {
        assert_eq!(e["type"], "stdio");
    }
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let env = e["env"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect()
        })
        .unwrap_or_default();
    (
        e["command"].as_str().unwrap().to_string(),
        strings(&e["args"]),
        env,
    )
}

/// Starts the server as a client would from `entry`, and asks it one question over stdio.
fn ask_over_stdio(command: &str, args: &[String], env: &[(String, String)]) -> Value {
    let mut child = Command::new(command)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("REFGRAPH_MODEL_DIR", "/nonexistent-model")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the entry's command starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "mcp-config test", "version": "0"}}}),
    );
    let init: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "refgraph", "{init}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "get_api_detail",
        "arguments": {"name": "acme_storage.StorageClient", "package": "acme-storage",
                      "version": "1"}}}),
    );
    let answer: Value = loop {
        let line = lines.next().unwrap().unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == 2 {
            break v;
        }
    };
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answer
}

#[test]
fn each_clients_entry_starts_a_server_that_answers_from_the_data_directory() {
    let s = Setup::new();
    let data = s.data.path().canonicalize().unwrap();
    for client in ["claude-code", "claude-desktop", "cursor", "vscode", "codex"] {
        let text = s.config(client);
        let (command, args, env) = entry(client, &text);
        assert!(Path::new(&command).is_absolute(), "{client}: {command}");
        assert_eq!(args, ["serve"], "{client}");
        let data_env = env.iter().find(|(k, _)| k == "REFGRAPH_DATA").unwrap();
        assert_eq!(
            Path::new(&data_env.1).canonicalize().unwrap(),
            data,
            "{client}"
        );
        if client == "claude-code" {
            // What a client does with the entry: start it and ask. The label `1` is answered
            // by 1.0.0, and the answer says so.
            let answer = ask_over_stdio(&command, &args, &env);
            let text = answer["result"]["content"][0]["text"].as_str().unwrap();
            assert!(
                text.starts_with("[Version: 1.0.0 (asked 1 -> 1.0.0: the newest indexed 1.*)]"),
                "{text}"
            );
            assert_eq!(
                answer["result"]["structuredContent"]["qualified_name"],
                "acme_storage.StorageClient"
            );
        }
    }
    // Claude Code users also get the command that registers it for every project.
    let out = s.run(&["mcp-config", "--client", "claude-code"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("claude mcp add --scope user refgraph --env REFGRAPH_DATA="),
        "{stderr}"
    );
    assert!(stderr.contains(".mcp.json"), "{stderr}");
    // An unknown client is a usage error that lists the clients.
    let out = s.run(&["mcp-config", "--client", "emacs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("claude-desktop"));
}

#[test]
fn write_merges_into_each_clients_file_and_keeps_what_is_there() {
    let s = Setup::new();
    let home = s.home.path();
    let project = s.project.path();
    // Cursor's user file, with a server and a setting of the user's.
    let cursor = home.join(".cursor/mcp.json");
    std::fs::create_dir_all(cursor.parent().unwrap()).unwrap();
    let mine = r#"{"mcpServers": {"github": {"command": "gh-mcp", "args": []}}, "x": 1}"#;
    std::fs::write(&cursor, mine).unwrap();
    let codex = home.join(".codex/config.toml");
    std::fs::create_dir_all(codex.parent().unwrap()).unwrap();
    let codex_mine = "# mine\nmodel = \"o4\"\n\n[mcp_servers.docs]\ncommand = \"docs\"\n";
    std::fs::write(&codex, codex_mine).unwrap();

    for (client, file) in [
        ("cursor", cursor.clone()),
        ("codex", codex.clone()),
        ("vscode", project.join(".vscode/mcp.json")),
        ("claude-code", project.join(".mcp.json")),
        (
            "claude-desktop",
            home.join(".config/Claude/claude_desktop_config.json"),
        ),
    ] {
        let out = s.run(&["mcp-config", "--client", client, "--write"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{client}: {stderr}");
        assert!(
            stderr.contains("added the refgraph server"),
            "{client}: {stderr}"
        );
        let text = std::fs::read_to_string(&file).unwrap();
        let (_, args, _) = entry(client, &text);
        assert_eq!(args, ["serve"]);
        // A second run finds it there and writes nothing.
        let out = s.run(&["mcp-config", "--client", client, "--write"]);
        assert!(String::from_utf8_lossy(&out.stderr).contains("already set up"));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }
    let merged: Value = serde_json::from_str(&std::fs::read_to_string(&cursor).unwrap()).unwrap();
    assert_eq!(merged["mcpServers"]["github"]["command"], "gh-mcp");
    assert_eq!(merged["x"], 1);
    let merged = std::fs::read_to_string(&codex).unwrap();
    assert!(merged.starts_with(codex_mine), "{merged}");

    // A file it cannot read is left byte for byte, and the error says what to add by hand.
    let vscode = project.join(".vscode/mcp.json");
    let jsonc = "{\n  // my servers\n  \"servers\": {}\n}\n";
    std::fs::write(&vscode, jsonc).unwrap();
    let out = s.run(&["mcp-config", "--client", "vscode", "--write"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("was left as it is"), "{stderr}");
    assert!(stderr.contains("Add this entry by hand"), "{stderr}");
    assert!(stderr.contains("\"type\": \"stdio\""), "{stderr}");
    assert_eq!(std::fs::read_to_string(&vscode).unwrap(), jsonc);

    // --file names another file; CODEX_HOME moves Codex's.
    let other = project.join("elsewhere.json");
    let out = s.run(&[
        "mcp-config",
        "--client",
        "cursor",
        "--write",
        "--file",
        other.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    entry("cursor", &std::fs::read_to_string(&other).unwrap());
    let codex_home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_refgraph"))
        .arg("--data-dir")
        .arg(s.data.path())
        .args(["mcp-config", "--client", "codex", "--write"])
        .env("CODEX_HOME", codex_home.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    entry(
        "codex",
        &std::fs::read_to_string(codex_home.path().join("config.toml")).unwrap(),
    );
}
