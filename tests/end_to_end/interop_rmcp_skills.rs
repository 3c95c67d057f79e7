//! rmcp 3.11's client, with its SEP-2640 skills support, against the `skills` example over
//! Streamable HTTP in both eras: it lists the skills (`list_all_skills`), gets each
//! (`get_skill`), reads every file of each and verifies it with rmcp's own
//! `SkillResource::verify` (size and SHA-256 digest). The client is
//! `interop/rmcp-skills/`, a program of its own (the workspace pins an older rmcp 3.x, and
//! Cargo takes one 3.x per lockfile), built here with its own lockfile.

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::sync::LazyLock;
use std::time::Duration;

use serde_json::Value;

use crate::common::{ChildGuard, ExampleServer, HttpServer};

/// The skills example over HTTP, for the whole binary.
static SKILLS: LazyLock<HttpServer> = LazyLock::new(|| ExampleServer::named("skills").http());

/// How long building the client (rmcp and its HTTP stack, the first time) may take.
const BUILD_TIMEOUT: Duration = Duration::from_mins(10);

/// Builds `interop/rmcp-skills` (locked, under `target/interop-rmcp-skills`); its binary.
fn client_binary() -> PathBuf {
    let target = crate::common::target_dir().join("interop-rmcp-skills");
    let manifest = crate::common::root_dir().join("interop/rmcp-skills/Cargo.toml");
    let log = crate::common::out_dir("interop-rmcp-skills").join("build.log");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = Command::new(cargo);
    command
        .args(["build", "--locked", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target);
    let mut build = ChildGuard::spawn_logged(&mut command, &log);
    let status = build
        .wait_timeout(BUILD_TIMEOUT)
        .unwrap_or_else(|| panic!("building the rmcp skills client took over {BUILD_TIMEOUT:?}"));
    assert!(
        status.success(),
        "building interop/rmcp-skills failed:\n{}",
        fs::read_to_string(&log).unwrap_or_default()
    );
    target.join("debug").join("rmcp-skills-client")
}

#[test]
fn rmcp_client_lists_gets_and_verifies_every_skill_file_in_both_eras() {
    let client = client_binary();
    let forms =
        crate::common::root_dir().join("examples/skills/pdf-processing/references/FORMS.md");
    let forms_len = fs::metadata(forms).unwrap().len();
    for (mode, version) in [("modern", "2026-07-28"), ("legacy", "2025-11-25")] {
        let output = Command::new(&client)
            .args([SKILLS.url().as_str(), mode])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{mode}: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("{mode}: no JSON report ({e}): {stdout}"));
        assert_eq!(report["error"], Value::Null, "{mode}: {report}");
        assert_eq!(report["protocolVersion"], version, "{mode}: {report}");
        let skills = report["skills"].as_array().unwrap();
        let names: Vec<&str> = skills.iter().filter_map(|s| s["name"].as_str()).collect();
        assert_eq!(names, ["refunds", "pdf-processing"], "{mode}: {report}");
        let files: Vec<&Value> = skills
            .iter()
            .flat_map(|s| s["files"].as_array().unwrap())
            .collect();
        assert_eq!(
            files.len(),
            5,
            "{mode}: every file of both skills: {report}"
        );
        for file in &files {
            assert_eq!(file["verified"], true, "{mode}: {file}");
        }
        let read = files
            .iter()
            .find(|f| f["uri"] == "skill://pdf-processing/references/FORMS.md")
            .unwrap();
        assert_eq!(read["bytes"], forms_len, "{mode}: {read}");
    }
}
