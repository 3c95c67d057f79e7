//! The skills extension (SEP-2640) as a host sees it, through the client, in both eras:
//! the folder of `examples/skills` listed, loaded and read with every file verified, its
//! folders browsed; skills built in code (a binary file among them); reloading a folder;
//! and every malformed folder refused when the server is built, naming the file.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;
use typemcp_client::typemcp_core::protocol::{
    DIRECTORY_MIME_TYPE, SKILLS_EXTENSION, SubscriptionFilter,
};
use typemcp_client::typemcp_core::skills::{VerifyError, digest};
use typemcp_client::{Client, ClientError};
use typemcp_server::{BuildError, Server, SkillBundle};

use crate::support::client::{connect, wires};
use crate::support::wire::{reply, request};

/// The skills the example serves.
fn example_skills() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/skills")
}

fn skills_server() -> Server {
    Server::builder()
        .skills_dir(example_skills())
        .build()
        .expect("the example's skills are well formed")
}

#[tokio::test]
async fn a_host_lists_loads_and_reads_the_skills_of_a_folder_in_both_eras() {
    let run = async |client: Client, run: typemcp_client::Run| {
        let declared = &client.server().capabilities;
        assert_eq!(
            declared.extensions.as_ref().map(|e| &e[SKILLS_EXTENSION]),
            Some(&json!({"directoryRead": true})),
            "{run}"
        );
        assert!(declared.resources.is_some(), "{run}: skills need resources");
        let entries = client.list_skills().await.unwrap();
        let uris: Vec<&str> = entries.iter().map(|e| e.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://acme/billing/refunds/SKILL.md",
                "skill://pdf-processing/SKILL.md"
            ],
            "{run}"
        );
        let pdf = &entries[1];
        assert_eq!(pdf.name(), Some("pdf-processing"));
        assert_eq!(
            pdf.frontmatter["metadata"],
            json!({"version": "1.2"}),
            "verbatim"
        );
        let files = pdf.resources.files().unwrap();
        let on_disk =
            fs::read(example_skills().join("pdf-processing/references/FORMS.md")).unwrap();
        let forms = files.iter().find(|f| f.uri.ends_with("FORMS.md")).unwrap();
        assert_eq!(
            (forms.size, forms.digest.clone()),
            (on_disk.len() as u64, digest(&on_disk))
        );

        // skills/get answers for the same entry; an unknown skill is -32602.
        assert_eq!(&client.get_skill(&pdf.uri).await.unwrap(), pdf, "{run}");
        let unknown = client.get_skill("skill://nope/SKILL.md").await.unwrap_err();
        assert_eq!(unknown.code(), Some(-32602), "{run}");
        assert!(
            unknown
                .to_string()
                .contains("No skill is served at skill://nope/SKILL.md"),
            "{run}: {unknown}"
        );

        // Loaded: SKILL.md verified; each file read through the skill, verified again.
        let skill = client.load_skill(pdf).await.unwrap();
        assert!(skill.instructions().contains("# PDF processing"));
        assert_eq!(
            skill.read(&client, "references/FORMS.md").await.unwrap(),
            on_disk
        );
        let unlisted = skill
            .read(&client, "references/MISSING.md")
            .await
            .unwrap_err();
        assert!(
            matches!(unlisted, ClientError::Skill(VerifyError::Unlisted(_))),
            "{run}: {unlisted}"
        );

        // Folders: the skill's root lists its files and subfolders; a file is no folder.
        let root = client
            .read_directory("skill://pdf-processing")
            .await
            .unwrap();
        let children: Vec<(&str, Option<&str>)> = root
            .iter()
            .map(|r| (r.name.as_str(), r.mime_type.as_deref()))
            .collect();
        assert_eq!(
            children,
            [
                ("SKILL.md", Some("text/markdown")),
                ("references", Some(DIRECTORY_MIME_TYPE)),
                ("templates", Some(DIRECTORY_MIME_TYPE)),
            ],
            "{run}"
        );
        let not_a_folder = client.read_directory(&pdf.uri).await.unwrap_err();
        assert_eq!(not_a_folder.code(), Some(-32602), "{run}");
        assert!(
            not_a_folder
                .to_string()
                .contains("is not a directory resource"),
            "{run}: {not_a_folder}"
        );

        // resources/list carries each SKILL.md, named and described from its frontmatter.
        let listed = client.list_resources().await.unwrap();
        let manifest = listed.iter().find(|r| r.uri == pdf.uri).unwrap();
        assert_eq!(manifest.name, "pdf-processing");
        assert_eq!(manifest.mime_type.as_deref(), Some("text/markdown"));
        assert_eq!(manifest.description.as_deref(), pdf.description());
    };
    wires(skills_server)
        .run(Client::builder, run)
        .await
        .unwrap();
}

#[tokio::test]
async fn skills_methods_are_unknown_on_a_server_without_skills() {
    let server = Server::builder().name("plain").build().unwrap();
    for method in ["skills/list", "skills/get", "resources/directory/read"] {
        let answer = reply(
            &server,
            &request(method, json!({"uri": "skill://a/SKILL.md"}), json!({})),
        )
        .await;
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
    }
    let client = connect(server, Client::builder()).await;
    assert!(!client.offers_skills());
    assert!(matches!(
        client.list_skills().await,
        Err(ClientError::NotOffered { .. })
    ));
}

#[tokio::test]
async fn skills_built_in_code_serve_text_and_binary_files() {
    let logo: &[u8] = &[0x89, b'P', b'N', b'G', 0xff, 0x00];
    let skill = SkillBundle::new("brand")
        .file(
            "SKILL.md",
            "---\nname: brand\ndescription: Use the brand assets\n---\nUse logo.png.\n",
        )
        .file("logo.png", logo);
    let server = Server::builder().skill(skill).build().unwrap();
    let client = connect(server, Client::builder()).await;
    let entry = client.get_skill("skill://brand/SKILL.md").await.unwrap();
    let loaded = client.load_skill(&entry).await.unwrap();
    assert_eq!(loaded.read(&client, "logo.png").await.unwrap(), logo);
    let read = client
        .read_resource("skill://brand/logo.png")
        .await
        .unwrap();
    let wire = serde_json::to_value(&read.contents[0]).unwrap();
    assert_eq!(wire["mimeType"], "image/png");
    assert!(
        wire.get("blob").is_some(),
        "bytes that are not UTF-8 go as a blob: {wire}"
    );
}

/// A fresh folder under the target directory, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("skills")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

#[tokio::test]
async fn a_reloaded_folder_is_served_with_new_digests_and_listeners_told() {
    let dir = scratch("reload");
    write(
        &dir.join("notes/SKILL.md"),
        &skill_md("notes", "Take notes"),
    );
    let server = Server::builder().skills_dir(&dir).build().unwrap();
    let client = connect(server.clone(), Client::builder()).await;
    let before = client.get_skill("skill://notes/SKILL.md").await.unwrap();
    let mut changes = resource_list_changes(&client).await;

    write(
        &dir.join("notes/SKILL.md"),
        &skill_md("notes", "Take better notes"),
    );
    write(&dir.join("notes/style.md"), "Short sentences.\n");
    server.reload_skills().unwrap();
    let changed = changes.next().await.expect("a notification");
    assert_eq!(changed.method, "notifications/resources/list_changed");
    let after = client.get_skill("skill://notes/SKILL.md").await.unwrap();
    assert_eq!(after.description(), Some("Take better notes"));
    assert_ne!(after.resources, before.resources);
    assert_eq!(after.resources.files().map(<[_]>::len), Some(2));
    // The entry held from before no longer verifies what is served now.
    let stale = client.load_skill(&before).await.unwrap_err();
    assert!(matches!(stale, ClientError::Skill(_)), "{stale}");

    // A reload that finds a malformed skill fails and leaves the last good one served.
    write(&dir.join("notes/SKILL.md"), "no frontmatter any more\n");
    assert!(matches!(
        server.reload_skills(),
        Err(BuildError::InvalidSkill { .. })
    ));
    assert_eq!(
        client.get_skill("skill://notes/SKILL.md").await.unwrap(),
        after
    );
}

/// A listen for `notifications/resources/list_changed`.
async fn resource_list_changes(client: &Client) -> typemcp_client::Subscription {
    let mut filter = SubscriptionFilter::default();
    filter.resources_list_changed = Some(true);
    client.listen(filter).await.unwrap()
}

fn build_error(dir: &Path) -> (String, String) {
    match Server::builder().skills_dir(dir).build() {
        Err(BuildError::InvalidSkill { file, reason }) => (file, reason),
        other => panic!("expected InvalidSkill, got {other:?}"),
    }
}

#[test]
fn every_malformed_folder_is_a_build_error_naming_the_file() {
    let dir = scratch("no-frontmatter");
    write(&dir.join("a/SKILL.md"), "# A\n");
    let (file, reason) = build_error(&dir);
    assert!(
        file.ends_with("a/SKILL.md") && reason.contains("frontmatter"),
        "{file}: {reason}"
    );

    let dir = scratch("wrong-name");
    write(&dir.join("a/SKILL.md"), &skill_md("b", "d"));
    let (_, reason) = build_error(&dir);
    assert!(
        reason.contains("\"b\", but its folder is \"a\""),
        "{reason}"
    );

    let dir = scratch("duplicate-names");
    write(&dir.join("x/a/SKILL.md"), &skill_md("a", "d"));
    write(&dir.join("y/a/SKILL.md"), &skill_md("a", "d"));
    let (file, reason) = build_error(&dir);
    assert!(
        file.ends_with("y/a/SKILL.md") && reason.contains("already served"),
        "{reason}"
    );

    let dir = scratch("root-skill");
    write(&dir.join("SKILL.md"), &skill_md("root-skill", "d"));
    let (_, reason) = build_error(&dir);
    assert!(reason.contains("root of the skills folder"), "{reason}");

    let (file, reason) = build_error(&scratch("missing").join("nowhere"));
    assert!(
        file.ends_with("nowhere") && reason == "not a folder",
        "{file}: {reason}"
    );

    #[cfg(unix)]
    {
        let dir = scratch("symlink");
        write(&dir.join("a/SKILL.md"), &skill_md("a", "d"));
        write(&dir.join("secret.txt"), "outside the skill");
        std::os::unix::fs::symlink(dir.join("secret.txt"), dir.join("a/leak.txt")).unwrap();
        let (file, reason) = build_error(&dir);
        assert!(
            file.ends_with("a/leak.txt") && reason.contains("symbolic link"),
            "{file}: {reason}"
        );
    }

    // A file too large for the budget is refused by its size, unread (a sparse file: no
    // disk is used).
    let dir = scratch("too-large");
    write(&dir.join("a/SKILL.md"), &skill_md("a", "d"));
    let huge = fs::File::create(dir.join("a/huge.bin")).unwrap();
    huge.set_len(typemcp_server::skills::MAX_SKILLS_BYTES + 1)
        .unwrap();
    let (file, reason) = build_error(&dir);
    assert!(
        file.ends_with("a/huge.bin") && reason.contains("more than"),
        "{file}: {reason}"
    );

    // `..` in a skill built in code.
    let escaping = SkillBundle::new("a")
        .file("SKILL.md", skill_md("a", "d"))
        .file("../b/SKILL.md", "x");
    let error = Server::builder().skill(escaping).build().unwrap_err();
    assert!(
        error.to_string().contains("leaves the skill's folder"),
        "{error}"
    );

    // Hidden files are not served at all.
    let dir = scratch("hidden");
    write(&dir.join("a/SKILL.md"), &skill_md("a", "d"));
    write(&dir.join("a/.env"), "TOKEN=1");
    write(&dir.join(".git/config"), "x");
    assert!(Server::builder().skills_dir(&dir).build().is_ok());
}

#[tokio::test]
async fn hidden_files_are_left_out_of_the_manifest() {
    let dir = scratch("hidden-manifest");
    write(&dir.join("a/SKILL.md"), &skill_md("a", "d"));
    write(&dir.join("a/.env"), "TOKEN=1");
    let server = Server::builder().skills_dir(&dir).build().unwrap();
    let client = connect(server, Client::builder()).await;
    let entry = client.get_skill("skill://a/SKILL.md").await.unwrap();
    assert_eq!(entry.resources.files().map(<[_]>::len), Some(1));
    let read = client.read_resource("skill://a/.env").await.unwrap_err();
    assert_eq!(read.code(), Some(-32602));
    assert!(
        read.to_string()
            .contains("Resource not found: skill://a/.env"),
        "{read}"
    );
}

#[tokio::test]
async fn a_watched_folder_is_reloaded_when_a_file_changes() {
    let dir = scratch("watch");
    write(
        &dir.join("notes/SKILL.md"),
        &skill_md("notes", "Take notes"),
    );
    let server = Server::builder().skills_dir(&dir).build().unwrap();
    let watch = server.watch_skills(std::time::Duration::from_millis(20));
    let client = connect(server.clone(), Client::builder()).await;
    let mut changes = resource_list_changes(&client).await;
    // Another length: a change seen whatever the file system's time resolution.
    write(
        &dir.join("notes/SKILL.md"),
        &skill_md("notes", "Take many more notes"),
    );
    let changed = tokio::time::timeout(std::time::Duration::from_secs(10), changes.next())
        .await
        .expect("the watch reloads within seconds")
        .expect("a notification");
    assert_eq!(changed.method, "notifications/resources/list_changed");
    let entry = client.get_skill("skill://notes/SKILL.md").await.unwrap();
    assert_eq!(entry.description(), Some("Take many more notes"));
    server.shutdown();
    tokio::time::timeout(std::time::Duration::from_secs(5), watch)
        .await
        .expect("the watch ends when the server stops")
        .unwrap();
}

#[tokio::test]
async fn the_skills_list_is_paginated_and_bad_params_are_invalid() {
    let bundles =
        ["a", "b", "c"].map(|name| SkillBundle::new(name).file("SKILL.md", skill_md(name, "d")));
    let server = bundles
        .into_iter()
        .fold(Server::builder().page_size(1), |b, s| b.skill(s))
        .build()
        .unwrap();
    let first = reply(&server, &request("skills/list", json!({}), json!({}))).await;
    assert_eq!(
        first["result"]["skills"].as_array().map(Vec::len),
        Some(1),
        "{first}"
    );
    assert!(first["result"]["nextCursor"].is_string(), "{first}");
    let client = connect(server.clone(), Client::builder()).await;
    let all = client.list_skills().await.unwrap();
    assert_eq!(
        all.iter().filter_map(|s| s.name()).collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
    for (method, params, says) in [
        (
            "skills/get",
            json!({}),
            "Invalid params: missing field `uri`",
        ),
        (
            "skills/get",
            json!({"uri": 7}),
            "Invalid params: invalid type",
        ),
        (
            "skills/list",
            json!({"cursor": "not-a-cursor"}),
            "Invalid cursor",
        ),
        (
            "resources/directory/read",
            json!({"uri": "skill://nowhere"}),
            "skill://nowhere is not a directory resource",
        ),
    ] {
        let answer = reply(&server, &request(method, params.clone(), json!({}))).await;
        assert_eq!(
            answer["error"]["code"], -32602,
            "{method} {params}: {answer}"
        );
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with(says), "{method} {params}: {answer}");
    }
    // The server still serves after each.
    assert_eq!(client.list_skills().await.unwrap().len(), 3);
}

#[tokio::test]
async fn an_empty_skills_folder_declares_the_extension_and_lists_nothing() {
    let dir = scratch("empty");
    let server = Server::builder().skills_dir(&dir).build().unwrap();
    let client = connect(server.clone(), Client::builder()).await;
    assert!(client.offers_skills());
    assert!(client.list_skills().await.unwrap().is_empty());
    // A skill added later is served after a reload, to the same client.
    write(
        &dir.join("later/SKILL.md"),
        &skill_md("later", "Added later"),
    );
    server.reload_skills().unwrap();
    assert_eq!(client.list_skills().await.unwrap().len(), 1);
}

#[cfg(unix)]
#[test]
fn the_skills_folder_itself_may_be_a_link() {
    let dir = scratch("linked-root");
    write(&dir.join("real/a/SKILL.md"), &skill_md("a", "d"));
    std::os::unix::fs::symlink(dir.join("real"), dir.join("link")).unwrap();
    let server = Server::builder().skills_dir(dir.join("link")).build();
    assert!(server.is_ok(), "{:?}", server.err());
}
