//! The layers of `typemcp-server`, and the rule that holds them apart: a module may use what
//! is in its own layer or below, never what is above it. Every path into the crate
//! (`use crate::…`, `crate::…` in code, and the crate root's re-exports such as
//! `crate::Server`) is resolved to the module it names, and that module's layer compared
//! with the user's.
//!
//! Bottom to top:
//!
//! | layer | modules |
//! |---|---|
//! | 0. channels, budgets and leaves | `error`, `build_error`, `outbound`, `budget`, `caller`, `redis_link` |
//! | 1. sessions and tasks | `session`, `subscription`, `tasks` |
//! | 2. what a handler sees of its request | `context` |
//! | 3. request states: signing, verifying, the multi-round types | `state` |
//! | 4. handlers and their extractors | `handler` |
//! | 5. routes | `registry` |
//! | 6. the server's shared state | `server` |
//! | 7. the dispatcher (eras, methods, the multi-round guard) | `dispatch` |
//! | 8. the service every transport hands its requests to | `service` |
//! | 9. assembling a server | `builder` |
//! | 10. transports, and what sits on top | `transport`, `logging`, `macro_support` |
//!
//! Modules of one layer may use each other. One use goes up, by design, and is listed in
//! [`UPWARD`]: a handler's context hands it the server it runs on
//! ([`RequestContext::server`], to change its routes), while the server's routes take that
//! context. A new top-level module must be given a layer here, or this test fails.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module of the crate and its layer.
const LAYERS: &[(&str, u8)] = &[
    ("macros", 0),
    ("error", 0),
    ("build_error", 0),
    ("outbound", 0),
    ("budget", 0),
    ("caller", 0),
    ("redis_link", 0),
    ("header_names", 0),
    ("session", 1),
    ("subscription", 1),
    ("tasks", 1),
    ("skills", 1),
    ("context", 2),
    ("state", 3),
    ("handler", 4),
    ("registry", 5),
    ("server", 6),
    ("dispatch", 7),
    ("service", 8),
    ("builder", 9),
    ("transport", 10),
    ("logging", 10),
    ("macro_support", 10),
];

/// The uses that go up, each with its file: the whole list, so that a new one fails.
const UPWARD: &[(&str, &str)] = &[("context/mod.rs", "server")];

/// The crate root's re-exports, by the module that defines them.
const ROOT_EXPORTS: &[(&str, &str)] = &[
    ("Server", "server"),
    ("CachePolicy", "server"),
    ("BuildError", "build_error"),
    ("SkillBundle", "skills"),
    ("Rejection", "error"),
    ("ServerBuilder", "builder"),
    ("RequestContext", "context"),
    ("TransportInfo", "context"),
    ("TransportKind", "context"),
    ("AuthIdentity", "context"),
    ("ToolRoute", "registry"),
    ("PromptRoute", "registry"),
    ("ResourceRoute", "registry"),
    ("ResourceTemplateRoute", "registry"),
    ("IntoToolRoute", "registry"),
    ("Handler", "handler"),
    ("Json", "handler"),
    ("Arguments", "handler"),
    ("State", "handler"),
    ("UriParams", "handler"),
];

/// Names at the crate root that are not modules of the crate (other crates' items).
const FOREIGN: &[&str] = &[
    "typemcp_core",
    "CancellationToken",
    "McpError",
    "ErrorCode",
    "chrono",
    "url",
];

fn layer_of(module: &str) -> Option<u8> {
    LAYERS
        .iter()
        .find(|(name, _)| *name == module)
        .map(|(_, layer)| *layer)
}

/// The source, without comments (so that doc links and prose are not read as uses) and
/// without the unit tests at the end of a file (which may reach anywhere).
fn code_of(source: &str) -> String {
    let source = match source.find("\n#[cfg(test)]\nmod tests") {
        Some(end) => &source[..end],
        None => source,
    };
    source
        .lines()
        .map(|line| match line.find("//") {
            Some(start) if !line[..start].contains('"') => &line[..start],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segments of every `crate::` path in `code`, grouped uses included
/// (`use crate::{a::X, b::{Y, Z}}` names `a` and `b`).
fn crate_paths(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` is the macro's own path to this crate's root items; `typemcp_crate::`
        // and the like are not this crate.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut segment_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => {
                        depth += 1;
                        segment_start = false;
                    }
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => segment_start = true,
                    c if segment_start && (c.is_alphanumeric() || c == '_') => {
                        let name: String = group[i..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        names.push(name);
                        segment_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.push(name);
        }
    }
    names
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The top-level module a file belongs to (`None` for the crate root).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).ok()?;
    let first = relative.components().next()?.as_os_str().to_str()?;
    let module = first.strip_suffix(".rs").unwrap_or(first);
    (module != "lib").then(|| module.to_owned())
}

#[test]
fn no_module_uses_one_in_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 50, "the crate's sources were not found");
    let mut violations = BTreeMap::<String, Vec<String>>::new();
    let mut unplaced = Vec::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else {
            continue;
        };
        let Some(own) = layer_of(&module) else {
            unplaced.push(module);
            continue;
        };
        let source = fs::read_to_string(file).unwrap_or_default();
        for name in crate_paths(&code_of(&source)) {
            if FOREIGN.contains(&name.as_str()) || name.is_empty() {
                continue;
            }
            let target = ROOT_EXPORTS
                .iter()
                .find(|(export, _)| *export == name)
                .map_or(name.as_str(), |(_, module)| *module);
            let Some(theirs) = layer_of(target) else {
                unplaced.push(format!("{target} (used in {})", file.display()));
                continue;
            };
            let shown = file.strip_prefix(&src).unwrap_or(file).display();
            if theirs > own && !UPWARD.contains(&(shown.to_string().as_str(), target)) {
                violations
                    .entry(format!(
                        "{module} (layer {own}) uses {target} (layer {theirs})"
                    ))
                    .or_default()
                    .push(shown.to_string());
            }
        }
    }
    unplaced.sort();
    unplaced.dedup();
    assert!(
        unplaced.is_empty(),
        "modules without a layer in LAYERS (or root names missing from ROOT_EXPORTS): {unplaced:?}"
    );
    let report: Vec<String> = violations
        .iter()
        .map(|(what, files)| {
            let mut files = files.clone();
            files.dedup();
            format!("{what}: {}", files.join(", "))
        })
        .collect();
    assert!(
        report.is_empty(),
        "uses against the layer order:\n{}",
        report.join("\n")
    );
}

#[test]
fn the_path_reader_sees_grouped_and_plain_uses_and_skips_comments() {
    let code = code_of(
        "use crate::{a::X, b::{Y, Z}};\nuse crate::c;\nlet x = crate::d::f();\n\
         // crate::e is only mentioned\n/// [`crate::g`]\nmacro $crate::h",
    );
    assert_eq!(crate_paths(&code), ["a", "b", "c", "d"]);
}
