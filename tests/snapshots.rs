//! Snapshot tests of what the example servers list: `tools/list`, `prompts/list`,
//! `resources/list` and `resources/templates/list` of `examples/quickstart.rs` and
//! `examples/conformance_server.rs`, each compared with a committed file in
//! `tests/snapshots/`, so that a change in generated names, descriptions, input/output
//! schemas, annotations or argument lists shows up in review.
//!
//! Each example runs as a child process over stdio (quickstart with no arguments,
//! conformance_server with `--stdio`) and gets one newline-delimited 2026-07-28 request per
//! method; every read has a deadline. A snapshot is the pretty-printed `result` with its
//! `_meta` (server name and version) removed, keys in the order the server wrote them, in
//! `tests/snapshots/<example>.<method with '/' as '_'>.json`.
//!
//! A missing snapshot is written and the test passes (saying so); `UPDATE_SNAPSHOTS=1`
//! rewrites all of them:
//!
//! ```text
//! UPDATE_SNAPSHOTS=1 cargo test --test snapshots
//! ```
//!
//! A mismatch fails with the snapshot's path, the first differing JSON path and a line diff.
//!
//! Independently of the snapshots, the tests check what users rely on: every tool and prompt
//! is described, every tool input schema is an object schema, tool names are unique,
//! quickstart's `add` has its documented schema and read-only hint, and the conformance
//! prompt `test_prompt_with_arguments` requires `arg1` and `arg2`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "common/stdio_client.rs"]
mod stdio_client;

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::META_SERVER_INFO;
use serde_json::{Value, json};
use stdio_client::{StdioClient, example_binary};

/// Environment variable that makes every snapshot test rewrite its file.
const UPDATE_ENV: &str = "UPDATE_SNAPSHOTS";
/// At most this many lines of diff in a failure message.
const MAX_DIFF_LINES: usize = 60;
/// Unchanged lines shown around each changed one.
const DIFF_CONTEXT: usize = 3;

// ---------------------------------------------------------------------------------------------
// The examples

/// An example server of the root package.
#[derive(Debug, Clone, Copy)]
enum Example {
    Quickstart,
    Conformance,
}

impl Example {
    /// The example's name (its file in `examples/`, and the snapshot file prefix).
    fn name(self) -> &'static str {
        match self {
            Self::Quickstart => "quickstart",
            Self::Conformance => "conformance_server",
        }
    }

    /// The name the server reports in `_meta` of its results.
    fn server_name(self) -> &'static str {
        match self {
            Self::Quickstart => "quickstart",
            Self::Conformance => "mcp-rust-conformance-server",
        }
    }

    /// Builds (once) and starts the example over stdio.
    fn start(self) -> StdioClient {
        let mut command = Command::new(example_binary(self.name()));
        if let Self::Conformance = self {
            command.arg("--stdio");
        }
        command.env("RUST_LOG", "warn");
        StdioClient::spawn(&mut command, format!("example {}", self.name()))
    }

    /// Every `method` result (`_meta` removed) of a fresh server, in request order.
    fn results(self, methods: &[&str]) -> Vec<Value> {
        let mut server = self.start();
        methods
            .iter()
            .enumerate()
            .map(|(id, method)| self.result(&mut server, id, method, json!({})))
            .collect()
    }

    /// The result of one request, checked to be a complete result of this server, with
    /// `_meta` removed.
    fn result(self, server: &mut StdioClient, id: usize, method: &str, params: Value) -> Value {
        let id = json!(format!("{method}#{id}"));
        let response = server.request(id.clone(), method, params);
        assert_eq!(response["jsonrpc"], "2.0", "{method}: {response}");
        assert_eq!(response["id"], id, "{method}: the id is echoed: {response}");
        assert!(
            response.get("error").is_none(),
            "{}: {method} failed: {response}",
            self.name()
        );
        let mut result = response["result"].clone();
        let Some(object) = result.as_object_mut() else {
            panic!(
                "{}: {method} without a result object: {response}",
                self.name()
            );
        };
        assert_eq!(object["resultType"], "complete", "{method}: {response}");
        let meta = object
            .shift_remove("_meta")
            .unwrap_or_else(|| panic!("{method}: a result carries `_meta`: {response}"));
        assert_eq!(
            meta[META_SERVER_INFO]["name"],
            self.server_name(),
            "{method}: the result names the server: {response}"
        );
        result
    }

    /// Every item under `key` of `method`, following `nextCursor` through all pages.
    fn list_all(self, method: &str, key: &str) -> Vec<Value> {
        let mut server = self.start();
        let mut items = Vec::new();
        let mut params = json!({});
        for page in 0..100 {
            let result = self.result(&mut server, page, method, params);
            let page_items = result[key]
                .as_array()
                .unwrap_or_else(|| panic!("{method}: `{key}` is not an array: {result}"));
            items.extend(page_items.iter().cloned());
            match result.get("nextCursor") {
                Some(Value::String(cursor)) => params = json!({ "cursor": cursor }),
                None | Some(Value::Null) => return items,
                Some(other) => panic!("{method}: nextCursor is not a string: {other}"),
            }
        }
        panic!("{method}: still a nextCursor after 100 pages");
    }

    fn tools(self) -> Vec<Value> {
        self.list_all("tools/list", "tools")
    }

    fn prompts(self) -> Vec<Value> {
        self.list_all("prompts/list", "prompts")
    }
}

/// The item named `name` among `items`.
#[track_caller]
fn named<'a>(items: &'a [Value], name: &str) -> &'a Value {
    items
        .iter()
        .find(|item| item["name"] == name)
        .unwrap_or_else(|| panic!("nothing named {name:?} in {items:#?}"))
}

// ---------------------------------------------------------------------------------------------
// Snapshots

/// The four list methods, in the order they are requested.
const LIST_METHODS: [&str; 4] = [
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
];

/// Checks every list result of `example` against its snapshot; reports all mismatches at
/// once.
fn check_snapshots(example: Example) {
    let results = example.results(&LIST_METHODS);
    let failures: Vec<String> = LIST_METHODS
        .iter()
        .zip(&results)
        .filter_map(|(method, result)| check_snapshot(example, method, result).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} snapshots of {} differ:\n\n{}\n\nIf the change is intended, update the \
         snapshots and review the diff of tests/snapshots/ before committing:\n    \
         {UPDATE_ENV}=1 cargo test --test snapshots",
        failures.len(),
        LIST_METHODS.len(),
        example.name(),
        failures.join("\n\n").trim_end()
    );
}

/// The snapshot file of `method` of `example`.
fn snapshot_path(example: Example, method: &str) -> PathBuf {
    common::root_dir()
        .join("tests")
        .join("snapshots")
        .join(format!(
            "{}.{}.json",
            example.name(),
            method.replace('/', "_")
        ))
}

/// Whether `UPDATE_SNAPSHOTS` asks to rewrite the snapshots.
fn updating() -> bool {
    std::env::var(UPDATE_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Compares `actual` with the snapshot file (writing it if missing or when updating).
fn check_snapshot(example: Example, method: &str, actual: &Value) -> Result<(), String> {
    let path = snapshot_path(example, method);
    let shown = display_path(&path);
    let actual_text = format!("{}\n", serde_json::to_string_pretty(actual).unwrap());
    let expected_text = match std::fs::read_to_string(&path) {
        Ok(text) if !updating() => text.replace("\r\n", "\n"),
        Ok(_) => return write_snapshot(&path, &actual_text, "updated"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return write_snapshot(&path, &actual_text, "written (it was missing)");
        }
        Err(e) => return Err(format!("cannot read the snapshot {shown}: {e}")),
    };
    if expected_text == actual_text {
        return Ok(());
    }
    let source = format!("{} {method}", example.name());
    let first = match serde_json::from_str::<Value>(&expected_text) {
        Ok(expected) => first_difference(&expected, actual, "$")
            .unwrap_or_else(|| "the JSON is the same, only its formatting differs".to_owned()),
        Err(e) => format!("the snapshot is not valid JSON ({e})"),
    };
    Err(format!(
        "snapshot {shown} does not match what {source} returns\nfirst difference: {first}\n\
         --- {shown} (snapshot)\n+++ {source} (actual)\n{}",
        line_diff(&expected_text, &actual_text)
    ))
}

fn write_snapshot(path: &Path, text: &str, what: &str) -> Result<(), String> {
    let shown = display_path(path);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {dir:?}: {e}"))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write the snapshot {shown}: {e}"))?;
    println!("snapshot {shown} {what}");
    Ok(())
}

/// `path` relative to the workspace root where possible.
fn display_path(path: &Path) -> String {
    path.strip_prefix(common::root_dir())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Where `actual` first departs from `expected`, in document order, as
/// `<JSON path>: <what differs>`; `None` if they are equal, key order included.
fn first_difference(expected: &Value, actual: &Value, path: &str) -> Option<String> {
    match (expected, actual) {
        (Value::Object(want), Value::Object(got)) => {
            for (key, want_value) in want {
                let child = child_path(path, key);
                match got.get(key) {
                    None => {
                        return Some(format!(
                            "{child}: missing (the snapshot has {})",
                            brief(want_value)
                        ));
                    }
                    Some(got_value) => {
                        if let Some(found) = first_difference(want_value, got_value, &child) {
                            return Some(found);
                        }
                    }
                }
            }
            if let Some((key, value)) = got.iter().find(|(key, _)| !want.contains_key(*key)) {
                return Some(format!(
                    "{}: not in the snapshot (the server sends {})",
                    child_path(path, key),
                    brief(value)
                ));
            }
            let want_keys: Vec<&String> = want.keys().collect();
            let got_keys: Vec<&String> = got.keys().collect();
            (want_keys != got_keys).then(|| {
                format!(
                    "{path}: keys in another order: snapshot {want_keys:?}, server {got_keys:?}"
                )
            })
        }
        (Value::Array(want), Value::Array(got)) => {
            for (i, (want_item, got_item)) in want.iter().zip(got).enumerate() {
                if let Some(found) = first_difference(want_item, got_item, &format!("{path}[{i}]"))
                {
                    return Some(found);
                }
            }
            match want.len().cmp(&got.len()) {
                std::cmp::Ordering::Equal => None,
                std::cmp::Ordering::Greater => Some(format!(
                    "{path}[{}]: missing (the snapshot has {} items, the server {})",
                    got.len(),
                    want.len(),
                    got.len()
                )),
                std::cmp::Ordering::Less => Some(format!(
                    "{path}[{}]: not in the snapshot (the snapshot has {} items, the server {}): {}",
                    want.len(),
                    want.len(),
                    got.len(),
                    brief(&got[want.len()])
                )),
            }
        }
        _ => (expected != actual).then(|| {
            format!(
                "{path}: the snapshot has {}, the server sends {}",
                brief(expected),
                brief(actual)
            )
        }),
    }
}

/// `path.key`, or `path["key"]` for keys that are not plain identifiers.
fn child_path(path: &str, key: &str) -> String {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::from(key))
    }
}

/// A value as compact JSON, cut short if long.
fn brief(value: &Value) -> String {
    const MAX: usize = 120;
    let text = value.to_string();
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// A unified-style line diff (`-` snapshot, `+` actual) with a few lines of context,
/// at most [`MAX_DIFF_LINES`] lines.
fn line_diff(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    // Longest common subsequence table, from the ends.
    let mut lcs = vec![vec![0_usize; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            ops.push((' ', old[i]));
            i += 1;
            j += 1;
        } else if i < old.len() && (j == new.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', old[i]));
            i += 1;
        } else {
            ops.push(('+', new[j]));
            j += 1;
        }
    }
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    let shown = |k: usize| changed.iter().any(|&c| c.abs_diff(k) <= DIFF_CONTEXT);
    let mut out = String::new();
    let mut lines = 0;
    let mut gap = false;
    for (k, (tag, line)) in ops.iter().enumerate() {
        if !shown(k) {
            gap = true;
            continue;
        }
        if lines == MAX_DIFF_LINES {
            let rest = changed.iter().filter(|&&c| c >= k).count();
            let _ = writeln!(out, "… ({rest} more changed lines)");
            break;
        }
        if gap && !out.is_empty() {
            out.push_str("@@ …\n");
        }
        gap = false;
        let _ = writeln!(out, "{tag}{line}");
        lines += 1;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Snapshot tests

#[test]
fn quickstart_lists_match_snapshots() {
    check_snapshots(Example::Quickstart);
}

#[test]
fn conformance_server_lists_match_snapshots() {
    check_snapshots(Example::Conformance);
}

// ---------------------------------------------------------------------------------------------
// Invariants, independent of the snapshots

const EXAMPLES: [Example; 2] = [Example::Quickstart, Example::Conformance];

#[test]
fn every_tool_and_prompt_has_a_description() {
    for example in EXAMPLES {
        for (kind, items) in [("tool", example.tools()), ("prompt", example.prompts())] {
            assert!(!items.is_empty(), "{} lists no {kind}s", example.name());
            for item in &items {
                let description = item["description"].as_str().unwrap_or_default();
                assert!(
                    !description.trim().is_empty(),
                    "{} {kind} {} has no description: {item}",
                    example.name(),
                    item["name"]
                );
            }
        }
    }
}

#[test]
fn every_tool_input_schema_is_an_object_schema() {
    for example in EXAMPLES {
        for tool in example.tools() {
            assert_eq!(
                tool["inputSchema"]["type"],
                "object",
                "{} tool {}: inputSchema must have \"type\": \"object\": {tool}",
                example.name(),
                tool["name"]
            );
        }
    }
}

#[test]
fn tool_names_are_unique() {
    for example in EXAMPLES {
        let tools = example.tools();
        let mut seen = HashSet::new();
        for tool in &tools {
            let name = tool["name"]
                .as_str()
                .unwrap_or_else(|| panic!("{}: a tool without a name: {tool}", example.name()));
            assert!(!name.is_empty(), "{}: an empty tool name", example.name());
            assert!(
                seen.insert(name),
                "{}: the tool name {name:?} is listed twice",
                example.name()
            );
        }
    }
}

#[test]
fn quickstart_add_has_its_documented_schema_and_hint() {
    let tools = Example::Quickstart.tools();
    let add = named(&tools, "add");
    assert_eq!(add["description"], "Add two numbers.", "{add}");
    let schema = &add["inputSchema"];
    assert_eq!(schema["required"], json!(["a", "b"]), "{add}");
    assert_eq!(
        schema["properties"]["a"]["description"], "The first addend.",
        "{add}"
    );
    assert_eq!(
        schema["properties"]["b"]["description"], "The second addend.",
        "{add}"
    );
    assert_eq!(schema["properties"]["a"]["type"], "integer", "{add}");
    assert_eq!(schema["properties"]["b"]["type"], "integer", "{add}");
    assert_eq!(add["annotations"]["readOnlyHint"], true, "{add}");
}

#[test]
fn conformance_prompt_with_arguments_requires_arg1_and_arg2() {
    let prompts = Example::Conformance.prompts();
    let prompt = named(&prompts, "test_prompt_with_arguments");
    let arguments = prompt["arguments"]
        .as_array()
        .unwrap_or_else(|| panic!("no argument list: {prompt}"));
    let names: Vec<&str> = arguments
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert_eq!(names, ["arg1", "arg2"], "{prompt}");
    for argument in arguments {
        assert_eq!(argument["required"], true, "{prompt}");
    }
}

// ---------------------------------------------------------------------------------------------
// The snapshot machinery itself

#[test]
fn first_difference_names_the_json_path() {
    let snapshot = json!({"tools": [{"name": "add", "inputSchema": {"required": ["a", "b"]}}]});
    let same = snapshot.clone();
    assert_eq!(first_difference(&snapshot, &same, "$"), None);

    let changed = json!({"tools": [{"name": "add", "inputSchema": {"required": ["a"]}}]});
    let found = first_difference(&snapshot, &changed, "$").unwrap();
    assert!(
        found.starts_with("$.tools[0].inputSchema.required[1]: missing"),
        "{found}"
    );

    let renamed = json!({"tools": [{"name": "plus", "inputSchema": {"required": ["a", "b"]}}]});
    let found = first_difference(&snapshot, &renamed, "$").unwrap();
    assert_eq!(
        found,
        r#"$.tools[0].name: the snapshot has "add", the server sends "plus""#
    );

    let extra = json!({"tools": [{"name": "add", "inputSchema": {"required": ["a", "b"]},
                                  "annotations": {"readOnlyHint": true}}]});
    let found = first_difference(&snapshot, &extra, "$").unwrap();
    assert!(
        found.starts_with("$.tools[0].annotations: not in the snapshot"),
        "{found}"
    );

    let reordered = json!({"tools": [{"inputSchema": {"required": ["a", "b"]}, "name": "add"}]});
    let found = first_difference(&snapshot, &reordered, "$").unwrap();
    assert!(
        found.starts_with("$.tools[0]: keys in another order"),
        "{found}"
    );

    let odd_key = first_difference(&json!({"$schema": 1}), &json!({"$schema": 2}), "$").unwrap();
    assert!(odd_key.starts_with(r#"$["$schema"]:"#), "{odd_key}");
}

#[test]
fn line_diff_marks_changed_lines_with_context() {
    let diff = line_diff("a\nb\nc\nd\n", "a\nB\nc\nd\n");
    assert_eq!(diff, " a\n-b\n+B\n c\n d\n");
}
