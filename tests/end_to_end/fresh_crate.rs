//! A fresh crate written from the README, as a new user would: its own workspace in a temp
//! dir, with exactly the `[dependencies]` lines of the README's "## Cargo.toml" section and
//! the "## Quick start" code as `src/main.rs`, built with cargo, then run once over stdio (a
//! 2026-07-28 `server/discover` and `tools/call` of `add`, no `initialize`). The stdio-only
//! line the same section shows (`default-features = false`) builds a second such crate.
//!
//! What the README does not say, since a published crate needs none of it: the `typemcp-*`
//! crates are not on crates.io yet, so a `[patch.crates-io]` points each one the lines name
//! at this workspace's folder (cargo accepts a patch for a crate the registry does not have:
//! the dependency resolves to the patch without the index being asked for that name; the
//! crates those reach, such as `typemcp-core`, come by the path dependencies of the
//! workspace's own manifests, so they need no patch, and a patch for them would be reported
//! unused). The workspace's `Cargo.lock` is copied in, so the same versions resolve and the
//! build runs `--offline` from the local cargo cache (retried online only if that cache
//! lacks a crate). Builds go to `target/fresh-crate/`, shared by both crates and kept between
//! runs, so a rerun only builds the fresh crates themselves; their sources are removed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use crate::common::stdio_pipe::Pipe;
use crate::common::{META_SERVER_INFO, PROTOCOL_VERSION, call_tool, discover, root_dir, tool_text};
use serde_json::{Value, json};

/// The README's section under `heading` (a `## ` line), up to the next `## ` heading outside
/// a code block.
fn section<'a>(readme: &'a str, heading: &str) -> &'a str {
    let start = readme.find(&format!("\n{heading}\n"));
    let start = start.unwrap_or_else(|| panic!("README.md has no {heading:?} section")) + 1;
    let body = &readme[start + heading.len() + 1..];
    let mut fenced = false;
    let mut end = 0;
    for line in body.split_inclusive('\n') {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with("## ") {
            break;
        }
        end += line.len();
    }
    &body[..end]
}

/// The code blocks of `text` whose info string starts with `lang` (`rust` takes
/// `rust,no_run`), in order.
fn code_blocks<'a>(text: &'a str, lang: &str) -> Vec<&'a str> {
    let mut blocks = Vec::new();
    let mut open: Option<(bool, usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let fence = line.trim_end().strip_prefix("```");
        match (fence, open) {
            (Some(info), None) => {
                let fits = info.split([',', ' ']).next() == Some(lang);
                open = Some((fits, at + line.len()));
            }
            (Some(_), Some((fits, start))) => {
                if fits {
                    blocks.push(&text[start..at]);
                }
                open = None;
            }
            (None, _) => {}
        }
        at += line.len();
    }
    blocks
}

/// The inline code spans of `text`'s lines outside code blocks.
fn inline_code(text: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            spans.extend(line.split('`').skip(1).step_by(2));
        }
    }
    spans
}

/// The `[dependencies]` table of a TOML block: its header and every line up to the next
/// table header.
fn dependencies_table(toml: &str) -> Option<String> {
    let mut lines = toml.lines().skip_while(|l| l.trim() != "[dependencies]");
    let header = lines.next()?;
    let entries = lines.take_while(|l| !l.trim_start().starts_with('['));
    let table: Vec<&str> = std::iter::once(header).chain(entries).collect();
    Some(table.join("\n").trim_end().to_owned() + "\n")
}

/// The crate names of a `[dependencies]` table's entries.
fn dependency_names(table: &str) -> Vec<String> {
    let entries = table.lines().skip(1).map(str::trim);
    let entries = entries.filter(|l| !l.is_empty() && !l.starts_with('#'));
    let names = entries
        .filter_map(|l| l.split_once('='))
        .map(|(name, _)| name);
    names
        .map(|name| name.trim().trim_matches('"').to_owned())
        .collect()
}

/// What the README says a new crate is made of.
#[derive(Debug)]
struct Readme {
    /// The `[dependencies]` table of the "## Cargo.toml" section.
    dependencies: String,
    /// The same table with the `typemcp-server` line the section gives for a stdio-only
    /// server (`default-features = false`), if it gives one.
    stdio_only: Option<String>,
    /// The Rust code of the "## Quick start" section.
    quick_start: String,
}

impl Readme {
    fn read() -> Self {
        let path = root_dir().join("README.md");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let cargo = section(&text, "## Cargo.toml");
        let blocks = code_blocks(cargo, "toml");
        let dependencies = blocks.iter().find_map(|block| dependencies_table(block));
        let dependencies = dependencies.unwrap_or_else(|| {
            panic!("README.md's \"## Cargo.toml\" section has no ```toml block with [dependencies]")
        });
        let stdio_only = inline_code(cargo)
            .into_iter()
            .find(|span| {
                span.starts_with("typemcp-server =") && span.contains("default-features = false")
            })
            .map(|line| {
                let lines = dependencies.lines().map(|l| {
                    if l.trim_start().starts_with("typemcp-server ") {
                        line
                    } else {
                        l
                    }
                });
                lines.collect::<Vec<_>>().join("\n") + "\n"
            });
        if let Some(stdio_only) = &stdio_only {
            assert_ne!(
                stdio_only, &dependencies,
                "README.md: the stdio-only line replaces no `typemcp-server` line of [dependencies]"
            );
        }
        let quick_start = code_blocks(section(&text, "## Quick start"), "rust");
        let quick_start = quick_start.first().unwrap_or_else(|| {
            panic!("README.md's \"## Quick start\" section has no ```rust block")
        });
        Self {
            dependencies,
            stdio_only,
            quick_start: (*quick_start).to_owned(),
        }
    }
}

/// The workspace's packages, by name: their folders.
fn workspace_crates() -> Vec<(String, PathBuf)> {
    let root = root_dir();
    let dirs = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path());
    let dirs = dirs.filter(|dir| dir.join("Cargo.toml").is_file());
    let named = dirs.filter_map(|dir| {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
        let name = manifest.lines().find_map(|l| l.strip_prefix("name = "))?;
        Some((name.trim_matches('"').to_owned(), dir))
    });
    named.collect()
}

/// A crate written in a temp dir, removed when dropped.
#[derive(Debug)]
struct FreshCrate {
    name: String,
    dir: PathBuf,
    manifest: String,
}

impl FreshCrate {
    /// The crate `name`: `dependencies` and the patches of the `typemcp-*` crates they name,
    /// `main` as `src/main.rs`, and the workspace's lock file.
    fn write(name: &str, dependencies: &str, main: &str) -> Self {
        let crates = workspace_crates();
        let mut patches = String::new();
        for dependency in dependency_names(dependencies) {
            if !dependency.starts_with("typemcp-") {
                continue;
            }
            let found = crates.iter().find(|(name, _)| *name == dependency);
            let (_, dir) = found.unwrap_or_else(|| {
                panic!(
                    "README.md's [dependencies] name {dependency:?}, not a crate of this workspace"
                )
            });
            let path = dir.to_str().expect("a UTF-8 path");
            patches.push_str(&format!("{dependency} = {{ path = {path:?} }}\n"));
        }
        let manifest = format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             {dependencies}\n\
             # Not from the README: the typemcp crates are not on crates.io yet.\n\
             [patch.crates-io]\n{patches}"
        );
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("Cargo.toml"), &manifest).unwrap();
        std::fs::write(dir.join("src/main.rs"), main).unwrap();
        std::fs::copy(root_dir().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        let lock = std::fs::read_to_string(dir.join("Cargo.lock")).unwrap();
        for dependency in dependency_names(dependencies) {
            if !lock.contains(&format!("name = \"{dependency}\"\n")) {
                eprintln!(
                    "note: README.md's [dependencies] name {dependency:?}, which the workspace's \
                     Cargo.lock does not hold: it resolves from the registry"
                );
            }
        }
        Self {
            name: name.to_owned(),
            dir,
            manifest,
        }
    }

    /// `cargo build`, offline first: its executable. Fails naming what the README said.
    fn build(&self, target: &Path) -> PathBuf {
        let started = Instant::now();
        let mut output = self.cargo_build(target, true);
        let stderr = String::from_utf8_lossy(&output.stderr);
        // A crate missing from the local cache fails to download, or to resolve, offline.
        let offline = ["but --offline was specified", "you're using offline mode"];
        if !output.status.success() && offline.iter().any(|s| stderr.contains(s)) {
            eprintln!("note: {} did not build offline: trying online", self.name);
            output = self.cargo_build(target, false);
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        let tail = lines[lines.len().saturating_sub(60)..].join("\n");
        assert!(
            output.status.success(),
            "a fresh crate written from README.md (the [dependencies] of its \"## Cargo.toml\" \
             section, the code of its \"## Quick start\") does not build ({}):\n{tail}\n\n\
             Its Cargo.toml:\n{}",
            output.status,
            self.manifest
        );
        eprintln!("{}: built in {:.1?}", self.name, started.elapsed());
        let exe = format!("debug/{}{}", self.name, std::env::consts::EXE_SUFFIX);
        let exe = target.join(exe);
        assert!(exe.is_file(), "built {}, but not {exe:?}", self.name);
        exe
    }

    fn cargo_build(&self, target: &Path, offline: bool) -> Output {
        let mut build = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        build.arg("build").args(offline.then_some("--offline"));
        build.arg("--target-dir").arg(target).current_dir(&self.dir);
        build.env_remove("CARGO_TARGET_DIR").stdin(Stdio::null());
        // Not incremental: the patched typemcp crates build as crates.io ones would (and
        // half a gigabyte of incremental state less).
        build.env("CARGO_INCREMENTAL", "0");
        let output = build.output();
        output.unwrap_or_else(|e| panic!("cannot run {build:?}: {e}"))
    }
}

impl Drop for FreshCrate {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs the quick start's `exe` over stdio: a `server/discover` and a `tools/call` of
/// `add`, each a 2026-07-28 request carrying its own `_meta`; then end of input ends it.
fn run_quick_start(exe: &Path, log: &Path) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    runtime.expect("a Tokio runtime").block_on(async {
        let mut command = tokio::process::Command::new(exe);
        command.stderr(std::fs::File::create(log).unwrap());
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut child = command.kill_on_drop(true).spawn().unwrap();
        let (input, output) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
        let mut pipe = Pipe::new(input, output, Some(log.to_owned()));

        let (reply, _) = pipe.exchange(&discover(1)).await;
        let result = &reply["result"];
        assert_eq!(
            result["_meta"][META_SERVER_INFO]["name"], "calculator",
            "{reply}"
        );
        assert!(result["capabilities"]["tools"].is_object(), "{reply}");
        let versions = result["supportedVersions"].as_array();
        let speaks = versions.is_some_and(|v| v.contains(&json!(PROTOCOL_VERSION)));
        assert!(speaks, "{reply}");

        let (reply, _) = pipe
            .exchange(&call_tool(2, "add", json!({"a": 2, "b": 3})))
            .await;
        assert_eq!(reply["id"], 2, "{reply}");
        let result = &reply["result"];
        assert_eq!(result["resultType"], "complete", "{reply}");
        assert_ne!(result["isError"], Value::Bool(true), "{reply}");
        assert_eq!(tool_text(result), "5", "{reply}");

        pipe.close();
        let status = tokio::time::timeout(crate::common::READ_TIMEOUT, child.wait()).await;
        let status = status.expect("it exits at end of input").unwrap();
        assert!(status.success(), "exit status {status}");
    });
}

/// Writes, builds and runs the crate `name` with `dependencies` and the quick start.
fn build_and_run(name: &str, dependencies: &str, quick_start: &str) {
    let target = crate::common::out_dir("fresh-crate");
    let fresh = FreshCrate::write(name, dependencies, quick_start);
    let exe = fresh.build(&target);
    run_quick_start(&exe, &target.join(format!("{name}.stderr.log")));
}

#[test]
fn the_readme_dependency_lines_build_the_quick_start_which_answers_over_stdio() {
    let readme = Readme::read();
    let names = dependency_names(&readme.dependencies);
    assert!(names.iter().any(|n| n == "typemcp-server"), "{names:?}");
    build_and_run(
        "fresh-quickstart",
        &readme.dependencies,
        &readme.quick_start,
    );
}

#[test]
fn the_readme_stdio_only_line_builds_the_quick_start_too() {
    let readme = Readme::read();
    let Some(stdio_only) = readme.stdio_only else {
        eprintln!("README.md shows no stdio-only (`default-features = false`) line");
        return;
    };
    build_and_run("fresh-quickstart-stdio", &stdio_only, &readme.quick_start);
}

#[test]
fn the_readme_is_read_as_a_user_reads_it() {
    let readme = Readme::read();
    assert!(readme.dependencies.starts_with("[dependencies]\n"));
    assert!(
        readme.quick_start.contains("fn main"),
        "{}",
        readme.quick_start
    );
    let stdio_only = readme.stdio_only.as_deref().unwrap_or_default();
    assert!(
        stdio_only.contains("default-features = false"),
        "{stdio_only}"
    );
    let (all, stdio) = (
        dependency_names(&readme.dependencies),
        dependency_names(stdio_only),
    );
    assert_eq!(all, stdio, "the same crates, other features");

    let markdown = "x\n## A\n```sh\n## not a heading\n```\n`one` and `two`\n## B\n";
    assert_eq!(
        section(markdown, "## A"),
        "```sh\n## not a heading\n```\n`one` and `two`\n"
    );
    assert_eq!(inline_code(section(markdown, "## A")), ["one", "two"]);
    let blocks = "```rust,no_run\nfn a() {}\n```\n```toml\n[x]\n```\n";
    assert_eq!(code_blocks(blocks, "rust"), ["fn a() {}\n"]);
    let table = "[package]\nname = \"a\"\n[dependencies]\n# c\nb = \"1\"\n\"c\" = 2\n[dev]\n";
    let table = dependencies_table(table).unwrap();
    assert_eq!(table, "[dependencies]\n# c\nb = \"1\"\n\"c\" = 2\n");
    assert_eq!(dependency_names(&table), ["b", "c"]);
}
