//! Lists, gets and reads every skill of an MCP server with rmcp 3.11's client, verifying each
//! file with rmcp's own `SkillResource::verify` (size and SHA-256 digest).
//!
//! ```text
//! rmcp-skills-client <url> <modern|legacy>
//! ```
//!
//! `modern` connects with `server/discover` pinned to 2026-07-28, `legacy` with
//! `initialize`. Prints one JSON object: the negotiated version, each skill (URI, name, and
//! each file with its byte count and whether it verified), or the error.

use rmcp::model::{
    GetSkillRequestParams, ProtocolVersion, ReadResourceRequestParams, ResourceContents,
    SkillResources,
};
use rmcp::service::ClientLifecycleMode;
use rmcp::service::ClientServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (url, mode) = match args.as_slice() {
        [url, mode] if mode == "modern" || mode == "legacy" => (url.clone(), mode.clone()),
        _ => {
            eprintln!("usage: rmcp-skills-client <url> <modern|legacy>");
            std::process::exit(2);
        }
    };
    let report = match run(&url, &mode).await {
        Ok(report) => report,
        Err(error) => json!({ "mode": mode, "error": error }),
    };
    println!("{report}");
}

async fn run(url: &str, mode: &str) -> Result<Value, String> {
    let lifecycle = if mode == "modern" {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    let client =
        ().serve_with_lifecycle(transport, lifecycle)
            .await
            .map_err(|e| format!("connect: {e}"))?;
    let version = client
        .peer_info()
        .map(|info| info.protocol_version.to_string())
        .unwrap_or_default();
    let listed = client
        .list_all_skills()
        .await
        .map_err(|e| format!("skills/list: {e}"))?;
    let mut skills = Vec::new();
    for entry in listed {
        let got = client
            .get_skill(GetSkillRequestParams::new(entry.uri.clone()))
            .await
            .map_err(|e| format!("skills/get {}: {e}", entry.uri))?
            .skill;
        if got != entry {
            return Err(format!(
                "skills/get {} differs from its listed entry",
                entry.uri
            ));
        }
        let SkillResources::Files(files) = &entry.resources else {
            return Err(format!("{} is dynamic", entry.uri));
        };
        let mut read = Vec::new();
        for file in files {
            let result = client
                .read_resource(ReadResourceRequestParams::new(file.uri.clone()))
                .await
                .map_err(|e| format!("resources/read {}: {e}", file.uri))?;
            let bytes = match result.contents.first() {
                Some(ResourceContents::TextResourceContents { text, .. }) => {
                    text.clone().into_bytes()
                }
                other => return Err(format!("{} came as {other:?}", file.uri)),
            };
            let verified = file.verify(&bytes);
            read.push(json!({
                "uri": file.uri,
                "bytes": bytes.len(),
                "verified": verified.is_ok(),
                "problem": verified.err().map(|e| e.to_string()),
            }));
        }
        skills.push(json!({
            "uri": entry.uri,
            "name": entry.frontmatter.name,
            "description": entry.frontmatter.description,
            "files": read,
        }));
    }
    let _ = client.cancel().await;
    Ok(json!({ "mode": mode, "protocolVersion": version, "skills": skills, "error": null }))
}
