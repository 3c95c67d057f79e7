//! A server serving agent skills (the skills extension, SEP-2640) from a folder:
//! `examples/skills/` holds two, `pdf-processing` and `acme/billing/refunds`, each a
//! `SKILL.md` with its other files. Clients list them with `skills/list`, check one with
//! `skills/get`, browse its folders with `resources/directory/read` and read each file with
//! `resources/read`, verifying it against the SHA-256 digest and size the entry lists.
//!
//! ```text
//! cargo run --example skills                  # stdio (for an MCP client to spawn)
//! cargo run --example skills -- --http 3000   # Streamable HTTP on 127.0.0.1:3000/mcp
//! ```
//!
//! Pass `--dir PATH` (before `--http`) to serve another folder.

use typemcp_server::Server;

/// The folder served unless `--dir` names another.
const SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");

fn server(dir: &str) -> Result<Server, typemcp_server::BuildError> {
    Server::builder()
        .name("skills")
        .version("1.0.0")
        .instructions("Skills for PDF work and refunds: list them with skills/list.")
        .skills_dir(dir)
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    typemcp_server::logging::init();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let dir = match args.iter().position(|a| a == "--dir") {
        Some(at) if at + 1 < args.len() => {
            let dir = args.remove(at + 1);
            args.remove(at);
            dir
        }
        Some(_) => return Err("--dir needs a folder".into()),
        None => SKILLS.to_owned(),
    };
    let server = server(&dir)?;
    match args.as_slice() {
        [flag, port] if flag == "--http" => {
            let port: u16 = port.parse()?;
            eprintln!(
                "Serving the skills of {dir} on http://127.0.0.1:{port}/mcp (Ctrl-C to stop)"
            );
            server.serve_http(("127.0.0.1", port)).await?;
        }
        [] => server.serve_stdio().await?,
        _ => return Err("usage: skills [--dir PATH] [--http PORT]".into()),
    }
    Ok(())
}
