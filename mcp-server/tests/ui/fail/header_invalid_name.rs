//! A mirrored argument's header name is a non-empty RFC 9110 token: every bad one is
//! reported in one build, and so are `#[arg]` keys that do not exist.

use typemcp_server::tool;

#[tool]
async fn route(
    #[arg(header = "")] a: String,
    #[arg(header = "Re gion")] b: String,
    #[arg(header = "Re\r\ngion")] c: String,
    #[arg(header = "Zoné")] d: String,
    #[arg(header = 5)] e: String,
    #[arg(heder = "X")] f: String,
    #[arg] g: String,
) -> String {
    format!("{a}{b}{c}{d}{e}{f}{g}")
}

fn main() {}
